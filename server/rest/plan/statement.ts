/** The columns every main statement returns, so one reader renders them all. */
export interface ResultRow {
  total: string | null;
  page: number;
  body: string | null;
  headers: string | null;
  status: string | null;
}

const GUCS = `nullif(current_setting('response.headers', true), '') as headers, nullif(current_setting('response.status', true), '') as status`;

/**
 * Wraps a row-producing query into one row: the total (when counted), the page size,
 * the JSON array as text (rendered by PostgreSQL, sent as is) and the response GUCs.
 */
export function aggregateStatement(rows: string, count: string | null, prefix = '', scalarColumn: string | null = null): string {
  const total = count ? `(${count})` : 'null::bigint';
  // A set of scalars renders as an array of values, not of one-key objects.
  const element = scalarColumn ? `_x.${scalarColumn}` : '_x';
  return `${prefix}select ${total} as total, count(*)::int as page, coalesce(json_agg(${element}), '[]')::text as body, ${GUCS} from (${rows}) _x`;
}

/** After a statement whose rows are not returned: only the response GUCs. */
export const GUC_STATEMENT = `select null::bigint as total, 0 as page, null::text as body, ${GUCS}`;

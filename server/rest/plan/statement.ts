/** The columns every main statement returns, so one reader renders them all. */
export interface ResultRow {
  total: string | null;
  page: number;
  body: string | null;
  headers: string | null;
  status: string | null;
  /** For upserts: whether any row was inserted (`true`/`false`), else null. */
  inserted: string | null;
  /** For CSV: the first row as JSON (its keys are the header); the body is then CSV lines. */
  csvHead: string | null;
}

const GUCS = `nullif(current_setting('response.headers', true), '') as headers, nullif(current_setting('response.status', true), '') as status`;

/**
 * Wraps a row-producing query into one row: the total (when counted), the page size,
 * the JSON array as text (rendered by PostgreSQL, sent as is) and the response GUCs.
 */
export function aggregateStatement(
  rows: string,
  count: string | null,
  prefix = '',
  scalarColumn: string | null = null,
  inserted: string | null = null,
): string {
  const total = count ? `(${count})` : 'null::bigint';
  // A set of scalars renders as an array of values, not of one-key objects.
  const element = scalarColumn ? `_x.${scalarColumn}` : '_x';
  const ins = inserted ? `, ${inserted} as inserted` : '';
  return `${prefix}select ${total} as total, count(*)::int as page, coalesce(json_agg(${element}), '[]')::text as body, ${GUCS}${ins} from (${rows}) _x`;
}

/**
 * As aggregateStatement, but the body is CSV lines exactly as PostgREST makes them: each
 * row's record text without its parentheses (PostgreSQL's quoting), one per line.
 */
export function csvStatement(rows: string, count: string | null): string {
  const total = count ? `(${count})` : 'null::bigint';
  const line = `substring(_x::text, 2, length(_x::text) - 2)`;
  return `select ${total} as total, count(*)::int as page, coalesce(string_agg(${line}, chr(10)), '') as body, (array_agg(row_to_json(_x)))[1]::text as csv_head, ${GUCS} from (${rows}) _x`;
}

/** After a statement whose rows are not returned: only the response GUCs. */
export const GUC_STATEMENT = `select null::bigint as total, 0 as page, null::text as body, ${GUCS}`;

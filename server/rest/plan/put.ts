import type { ParsedQuery } from '../ast.ts';
import { RestError } from '../errors.ts';
import type { Table } from '../schema.ts';

/**
 * PUT is PostgREST's single-row upsert: the filters must be exactly the primary key with
 * `eq`, no limit/offset, and the payload must carry the same key values. Returns the query
 * with the key as the conflict target and without the filters (the payload identifies the row).
 */
export function putAsUpsert(table: Table, query: ParsedQuery, body: unknown): ParsedQuery {
  const top = query.levels.get('');
  if (top && (top.limit !== null || top.offset !== null)) {
    throw new RestError(400, 'PGRST114', 'limit/offset querystring parameters are not allowed for PUT');
  }
  const conditions = top?.conditions ?? [];
  const keyValues = new Map<string, string>();
  for (const c of conditions) {
    if (
      c.kind !== 'filter' ||
      c.op !== 'eq' ||
      c.negate ||
      c.quantifier ||
      c.field.path.length > 0 ||
      c.value.kind !== 'scalar'
    ) {
      keyValues.clear();
      break;
    }
    keyValues.set(c.field.name, c.value.value);
  }
  const pk = table.primaryKey;
  if (
    pk.length === 0 ||
    keyValues.size !== conditions.length ||
    keyValues.size !== pk.length ||
    !pk.every((k) => keyValues.has(k))
  ) {
    throw new RestError(405, 'PGRST105', "Filters must include all and only primary key columns with 'eq' operators");
  }
  const rows = Array.isArray(body) ? body : [body];
  const row = rows[0] as Record<string, unknown> | undefined;
  if (rows.length !== 1 || typeof row !== 'object' || row === null) {
    throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  }
  for (const k of pk) {
    const v = row[k];
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (v === undefined || v === null || text !== keyValues.get(k)) {
      throw new RestError(400, 'PGRST115', 'Payload values do not match URL in primary key column(s)');
    }
  }
  const levels = new Map(query.levels);
  if (top) levels.set('', { ...top, conditions: [] });
  return { ...query, levels, onConflict: pk };
}

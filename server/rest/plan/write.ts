import type { ParsedQuery } from '../ast.ts';
import { RestError, invalidBody, payloadColumnNotFound, columnNotFound } from '../errors.ts';
import type { Preferences } from '../parse/headers.ts';
import type { SchemaCache, Table } from '../schema.ts';
import { conditionSql, type FilterScope } from './filter.ts';
import { readSql, resolveRead } from './read.ts';
import { ident, literal, qualified, SqlBuilder } from './sql.ts';
import { aggregateStatement, GUC_STATEMENT } from './statement.ts';

export interface WritePlan {
  statements: { sql: string; values: unknown[] }[];
  /** Which statement's first row holds the result; -1 when only a row count is known. */
  resultIndex: number;
  /** For return=headers-only: the primary key columns of the Location header. */
  locationKeys: string[] | null;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Columns a payload writes: `columns=` when given, else the keys every object shares. */
function payloadColumns(table: Table, rows: Record<string, Json>[], columns: string[] | null): string[] {
  let names: string[];
  if (columns) names = columns;
  else {
    const first = rows[0] ? Object.keys(rows[0]) : [];
    const signature = [...first].sort().join('\u0000');
    for (const row of rows) {
      if (Object.keys(row).sort().join('\u0000') !== signature) throw invalidBody('All object keys must match');
    }
    names = first;
  }
  for (const name of names) if (!table.columns.has(name)) throw payloadColumnNotFound(table.name, name);
  return names;
}

function topConditions(table: Table, query: ParsedQuery, b: SqlBuilder): string {
  const scope: FilterScope = { table, alias: table.name, embeds: new Map() };
  const conds = (query.levels.get('')?.conditions ?? []).map((c) => `(${conditionSql(c, scope, b)})`);
  return conds.length > 0 ? ` where ${conds.join(' and ')}` : '';
}

function insertSql(table: Table, body: unknown, query: ParsedQuery, prefs: Preferences, b: SqlBuilder): string {
  const rows = Array.isArray(body) ? body : [body];
  if (!rows.every(isObject)) throw invalidBody('All object keys must match');
  const cols = payloadColumns(table, rows, query.columns);
  const target = qualified(table.schema, table.name);
  const alias = ident(table.name);
  if (cols.length === 0) {
    if (rows.length > 1) throw invalidBody('All object keys must match');
    return `insert into ${target} as ${alias} default values`;
  }
  const payload = b.param(JSON.stringify(rows), 'json');
  const explicitDefaults = prefs.missing === 'default' && query.columns !== null;
  const selectCols = cols.map((c) => {
    const meta = table.columns.get(c)!;
    // An identity column's default is its sequence's next value.
    const fallback =
      meta.defaultExpr ??
      (meta.hasDefault ? `nextval(pg_get_serial_sequence(${literal(target)}, ${literal(c)}))` : null);
    if (!explicitDefaults || !fallback) return `_r.${ident(c)}`;
    // Like PostgREST, every row evaluates the default (a sequence advances even when a value was given).
    return `(array[_r.${ident(c)}, ${fallback}])[case when _e::jsonb ? ${literal(c)} then 1 else 2 end]`;
  });
  const source = explicitDefaults
    ? `json_array_elements(${payload}) as _e, lateral json_populate_record(null::${target}, _e) as _r`
    : `json_populate_recordset(null::${target}, ${payload}) as _r`;
  let sql = `insert into ${target} as ${alias} (${cols.map(ident).join(', ')}) select ${selectCols.join(', ')} from ${source}`;
  if (prefs.resolution || query.onConflict) {
    const conflict = query.onConflict ?? table.primaryKey;
    for (const c of conflict) if (!table.columns.has(c)) throw columnNotFound(table.name, c);
    if (prefs.resolution) {
      if (conflict.length === 0)
        throw new RestError(
          400,
          '42P10',
          'there is no unique or exclusion constraint matching the ON CONFLICT specification',
        );
      const updates = cols.map((c) => `${ident(c)} = excluded.${ident(c)}`);
      sql += ` on conflict (${conflict.map(ident).join(', ')}) `;
      sql +=
        prefs.resolution === 'ignore-duplicates' || updates.length === 0
          ? 'do nothing'
          : `do update set ${updates.join(', ')}`;
    }
  }
  return sql;
}

function updateSql(table: Table, body: unknown, query: ParsedQuery, b: SqlBuilder): string | null {
  if (!isObject(body)) throw invalidBody('Empty or invalid json');
  const cols = payloadColumns(table, [body], query.columns);
  if (cols.length === 0) return null;
  const target = qualified(table.schema, table.name);
  const payload = b.param(JSON.stringify(body), 'json');
  const sets = cols.map((c) => `${ident(c)} = pgrst_body.${ident(c)}`).join(', ');
  return `update ${target} as ${ident(table.name)} set ${sets} from json_populate_record(null::${target}, ${payload}) as pgrst_body${topConditions(table, query, b)}`;
}

/** INSERT/upsert (POST), UPDATE (PATCH) or DELETE with the representation PostgREST returns. */
export function planWrite(
  cache: SchemaCache,
  table: Table,
  method: 'POST' | 'PATCH' | 'DELETE',
  body: unknown,
  query: ParsedQuery,
  prefs: Preferences,
  maxRows: number,
): WritePlan {
  if (table.kind === 'view' && table.columns.size === 0)
    throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
  const b = new SqlBuilder();
  let mutation: string | null;
  if (method === 'POST') mutation = insertSql(table, body, query, prefs, b);
  else if (method === 'PATCH') mutation = updateSql(table, body, query, b);
  else
    mutation = `delete from ${qualified(table.schema, table.name)} as ${ident(table.name)}${topConditions(table, query, b)}`;

  const ret = prefs.return ?? 'minimal';
  const upsert = method === 'POST' && prefs.resolution !== null;
  if (mutation === null) {
    // An empty PATCH changes nothing; answer as if no row matched.
    return {
      statements: [{ sql: aggregateStatement('select 1 where false', null), values: [] }],
      resultIndex: 0,
      locationKeys: null,
    };
  }
  if (ret === 'minimal' && !upsert) {
    return {
      statements: [
        { sql: mutation, values: b.values },
        { sql: GUC_STATEMENT, values: [] },
      ],
      resultIndex: -1,
      locationKeys: null,
    };
  }
  if (ret === 'headers-only') {
    const keys = table.primaryKey;
    const returning =
      keys.length > 0 ? keys.map((k) => `${ident(table.name)}.${ident(k)}`).join(', ') : '1 as pgrst_none';
    const sql = aggregateStatement(
      'select * from pgrst_source',
      null,
      `with pgrst_source as (${mutation} returning ${returning}) `,
    );
    return { statements: [{ sql, values: b.values }], resultIndex: 0, locationKeys: keys };
  }
  const root = resolveRead(
    cache,
    table,
    query.select,
    new Map([...query.levels].map(([k, v]) => [k, k === '' ? { ...v, conditions: [] } : v])),
  );
  const read = readSql(cache, root, b, { limit: null, offset: null }, 'pgrst_source');
  void maxRows;
  if (upsert) {
    // xmax is 0 on a row the upsert inserted: an upsert that only updated answers 200.
    const alias = ident(table.name);
    const cols = table.columnOrder.map(ident).join(', ');
    const prefix = `with pgrst_m as (${mutation} returning ${alias}.*, (${alias}.xmax = 0) as pgrst_inserted), pgrst_source as (select ${cols} from pgrst_m) `;
    const sql = aggregateStatement(
      read.rows,
      null,
      prefix,
      null,
      '(select coalesce(bool_or(pgrst_inserted), false) from pgrst_m)::text',
    );
    return { statements: [{ sql, values: b.values }], resultIndex: 0, locationKeys: null };
  }
  const sql = aggregateStatement(
    read.rows,
    null,
    `with pgrst_source as (${mutation} returning ${ident(table.name)}.*) `,
  );
  return { statements: [{ sql, values: b.values }], resultIndex: 0, locationKeys: null };
}

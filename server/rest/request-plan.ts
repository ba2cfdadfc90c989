import type { ParsedQuery } from './ast.ts';
import type { RequestContext } from '../gateway/http.ts';
import { RestError, tableNotFound } from './errors.ts';
import { parseRange, type Preferences, type ResponseFormat } from './parse/headers.ts';
import { parseQuery } from './parse/query.ts';
import { chooseFunction, planCall } from './plan/call.ts';
import { readSql, resolveRead } from './plan/read.ts';
import { SqlBuilder } from './plan/sql.ts';
import { aggregateStatement, csvStatement, type ResultRow } from './plan/statement.ts';
import { putAsUpsert } from './plan/put.ts';
import { planWrite } from './plan/write.ts';
import { applyGucs, contentRange, singular } from './respond.ts';
import type { Statement, StatementResult } from './run.ts';
import { tableKey, type SchemaCache, type Table } from './schema.ts';

/**
 * A request, once its headers and body are read, planned against the schema cache: the
 * statements to run (a read, a write, or an rpc call) and how their first result row
 * becomes the response's status, headers and body.
 */

/** Everything about a request decided before the schema cache is consulted. */
export interface Request {
  method: string;
  schema: string;
  target: { kind: 'table'; name: string } | { kind: 'rpc'; name: string };
  format: ResponseFormat;
  prefs: Preferences;
  body: { raw: string; json: unknown } | null;
  ctx: RequestContext;
}

/** What to run and how to turn its first result row into a response. */
export interface Planned {
  statements: Statement[];
  /** Index of the statement whose first row is a ResultRow; -1 for a bare mutation. */
  result: number;
  respond: (
    row: ResultRow | undefined,
    rowCount: number,
    results: StatementResult[],
  ) => { status: number; headers: Record<string, string>; body: string | null };
  readOnly: boolean;
  /** Writes that must see their result before committing (singular responses). */
  checkBeforeCommit: boolean;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);

function applied(prefs: Preferences, keys: (keyof Preferences)[]): Record<string, string> {
  const list = keys.filter((k) => prefs[k] !== null && k !== 'applied').map((k) => `${k}=${String(prefs[k])}`);
  return list.length > 0 ? { 'preference-applied': list.join(', ') } : {};
}

function table(cache: SchemaCache, schema: string, name: string): Table {
  const found = cache.tables.get(tableKey(schema, name));
  if (found) return found;
  const names = [...cache.tables.values()].filter((t) => t.schema === schema).map((t) => t.name);
  const near =
    names.find((n) => n.toLowerCase() === name.toLowerCase() || n === `${name}s` || `${n}s` === name) ?? null;
  throw tableNotFound(schema, name, near);
}

function page(query: ParsedQuery, r: Request, maxRows: number): { limit: number | null; offset: number | null } {
  const top = query.levels.get('');
  const range = r.method === 'GET' || r.method === 'HEAD' ? parseRange(r.ctx.headers.range) : null;
  let limit = top?.limit ?? range?.limit ?? null;
  const offset = top?.offset ?? range?.offset ?? null;
  if (limit === null || limit > maxRows) limit = maxRows;
  return { limit, offset };
}

function planRead(cache: SchemaCache, r: Request, maxRows: number): Planned {
  const { query } = parseQuery(r.ctx.url.searchParams);
  const t = table(cache, r.schema, r.target.name);
  const root = resolveRead(cache, t, query.select, query.levels);
  const b = new SqlBuilder();
  const p = page(query, r, maxRows);
  const read = readSql(cache, root, b, p);
  const count = r.prefs.count;
  const exact = count === 'exact' || count === 'estimated';
  const main =
    r.format === 'csv'
      ? csvStatement(read.rows, exact ? read.count : null)
      : aggregateStatement(read.rows, exact ? read.count : null);
  const statements: Statement[] = [{ sql: main, values: b.values }];
  if (count === 'planned' || count === 'estimated') {
    // The planner's row estimate for the unpaged read; its own parameters, numbered from 1.
    const eb = new SqlBuilder();
    statements.push({
      sql: `explain (format json) ${readSql(cache, root, eb, { limit: null, offset: null }).rows}`,
      values: eb.values,
    });
  }
  return {
    statements,
    result: 0,
    readOnly: true,
    checkBeforeCommit: false,
    respond: (row, _n, results) => {
      const plan = results[1]?.rows[0]?.['QUERY PLAN'];
      const explain: unknown = plan ? JSON.parse(plan) : undefined;
      return rowsResponse(r, row, p.offset ?? 0, count ? estimateTotal(r.prefs, row, explain, maxRows) : null, 200, [
        'count',
      ]);
    },
  };
}

/** count=planned reads the planner's estimate; count=estimated uses it only past max-rows. */
function estimateTotal(
  prefs: Preferences,
  row: ResultRow | undefined,
  explain: unknown,
  maxRows: number,
): number | null {
  const exact = row?.total === null || row?.total === undefined ? null : Number(row.total);
  if (prefs.count === 'exact' || explain === undefined) return exact;
  const plan = explain as [{ Plan: { 'Plan Rows': number } }] | undefined;
  const planned = plan?.[0]?.Plan['Plan Rows'] ?? exact;
  if (prefs.count === 'estimated' && exact !== null && exact <= maxRows) return exact;
  return planned;
}

function rowsResponse(
  r: Request,
  row: ResultRow | undefined,
  offset: number,
  total: number | null,
  okStatus: number,
  prefKeys: (keyof Preferences)[],
): { status: number; headers: Record<string, string>; body: string | null } {
  const pageSize = row?.page ?? 0;
  const headers: Record<string, string> = {
    'content-range': contentRange(offset, pageSize, total),
    ...applied(r.prefs, prefKeys),
  };
  let status = okStatus;
  if (total !== null && okStatus === 200) {
    if (offset > total && total > 0) {
      throw new RestError(
        416,
        'PGRST103',
        'Requested range not satisfiable',
        `An offset of ${offset} was requested, but there are only ${total} rows.`,
        null,
        { 'content-range': `*/${total}` },
      );
    }
    if (pageSize < total) status = 206;
  }
  let body = row?.body ?? '[]';
  if (r.format === 'object') body = singular(body, pageSize);
  if (r.format === 'csv' && row && row.csvHead !== null) {
    body =
      row.csvHead === ''
        ? ''
        : `${Object.keys(JSON.parse(row.csvHead) as Record<string, unknown>).join(',')}\n${row.body ?? ''}`;
  }
  status = applyGucs(row, headers, status);
  return { status, headers, body };
}

function planMutation(cache: SchemaCache, r: Request, maxRows: number): Planned {
  const parsed = parseQuery(r.ctx.url.searchParams).query;
  const t = table(cache, r.schema, r.target.name);
  const put = r.method === 'PUT';
  const method = put ? 'POST' : (r.method as 'POST' | 'PATCH' | 'DELETE');
  if (method !== 'DELETE' && r.body === null) throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  const query = put ? putAsUpsert(t, parsed, r.body?.json) : parsed;
  const prefs: Preferences = put ? { ...r.prefs, resolution: 'merge-duplicates' } : r.prefs;
  const plan = planWrite(cache, t, method, r.body?.json, query, prefs, maxRows);
  const ret = prefs.return ?? 'minimal';
  const okStatus = method === 'POST' && !put ? 201 : ret === 'representation' ? 200 : 204;
  const prefKeys: (keyof Preferences)[] = ['return', 'count', 'resolution', 'missing', 'tx'];
  return {
    statements: plan.statements,
    result: plan.resultIndex,
    readOnly: false,
    checkBeforeCommit: r.format === 'object' && ret === 'representation',
    respond: (row, rowCount) => {
      const n = plan.resultIndex === -1 ? rowCount : (row?.page ?? 0);
      const total = r.prefs.count ? n : null;
      const headers: Record<string, string> = {
        'content-range': method === 'POST' ? `*/${total ?? '*'}` : contentRange(0, n, total),
        ...applied(r.prefs, prefKeys),
      };
      let body: string | null = null;
      if (ret === 'representation') body = r.format === 'object' ? singular(row?.body ?? '[]', n) : (row?.body ?? '[]');
      if (ret === 'headers-only' && plan.locationKeys && plan.locationKeys.length > 0 && row?.body) {
        const first = (JSON.parse(row.body) as Record<string, unknown>[])[0];
        if (first) {
          const q = plan.locationKeys
            .map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(first[k] as string))}`)
            .join('&');
          headers.location = `/${encodeURIComponent(t.name)}?${q}`;
        }
      }
      // An upsert that inserted nothing (only updated) answers 200, as PostgREST does.
      const ok = okStatus === 201 && row?.inserted === 'false' && row.page > 0 ? 200 : okStatus;
      const status = applyGucs(row, headers, body === null && (method !== 'POST' || put) ? 204 : ok);
      return { status, headers, body };
    },
  };
}

function planRpc(cache: SchemaCache, r: Request, maxRows: number): Planned {
  const isGet = r.method === 'GET' || r.method === 'HEAD';
  const overloads = cache.functions.get(tableKey(r.schema, r.target.name)) ?? [];
  const paramNames = new Set(overloads.flatMap((f) => f.params.map((p) => p.name)));
  const { query, args } = parseQuery(r.ctx.url.searchParams, (key) => isGet && paramNames.has(key));
  let argObject: Record<string, unknown> = {};
  if (isGet) argObject = Object.fromEntries(args);
  else if (r.body !== null) {
    const json = r.body.json;
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) argObject = json as Record<string, unknown>;
    else if (r.prefs.params !== 'single-object') throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  }
  const singleObject = r.prefs.params === 'single-object';
  const argNames = singleObject ? [] : Object.keys(argObject);
  const fn = chooseFunction(cache, r.schema, r.target.name, argNames, singleObject, !isGet && r.body !== null);
  const p = page(query, r, maxRows);
  const unlimited = { limit: query.levels.get('')?.limit ?? null, offset: query.levels.get('')?.offset ?? null };
  const plan = planCall(
    cache,
    fn,
    argObject,
    r.body?.raw ?? null,
    singleObject,
    query,
    fn.returnsSet ? p : unlimited,
    r.prefs.count !== null,
  );
  return {
    statements: [{ sql: plan.sql, values: plan.values }],
    result: plan.void ? -1 : 0,
    readOnly: isGet,
    checkBeforeCommit: false,
    respond: (row) => {
      if (plan.void) return { status: 204, headers: applied(r.prefs, ['tx', 'params']), body: null };
      // One value or row counts as one (PostgREST answers count=exact with 0-0/1).
      const singleRange = (n: number): Record<string, string> =>
        r.prefs.count ? { 'content-range': contentRange(0, n, n), ...applied(r.prefs, ['count']) } : {};
      if (plan.single && plan.fn.returnKind === 'scalar') {
        const headers: Record<string, string> = { ...singleRange(1), ...applied(r.prefs, ['tx', 'params']) };
        return { status: applyGucs(row, headers, 200), headers, body: row?.body ?? 'null' };
      }
      if (plan.single) {
        const n = row?.page ?? 0;
        const headers: Record<string, string> = {
          ...singleRange(Math.min(n, 1)),
          ...applied(r.prefs, ['tx', 'params']),
        };
        const body = n === 0 ? 'null' : singular(row?.body ?? '[]', 1 === n ? 1 : n);
        return { status: applyGucs(row, headers, 200), headers, body };
      }
      const total = r.prefs.count && row?.total != null ? Number(row.total) : null;
      return rowsResponse(r, row, p.offset ?? 0, total, 200, ['count', 'tx', 'params']);
    },
  };
}

/** The text columns of a main statement's row (see aggregateStatement). */
export function toResultRow(raw: Record<string, string | null> | undefined): ResultRow | undefined {
  if (!raw || !('page' in raw)) return undefined;
  return {
    total: raw.total ?? null,
    page: Number(raw.page ?? 0),
    body: raw.body ?? null,
    headers: raw.headers ?? null,
    status: raw.status ?? null,
    inserted: raw.inserted ?? null,
    csvHead: 'csv_head' in raw ? (raw.csv_head ?? '') : null,
  };
}

/** Names a plan can fail on when the cache is behind the database. */
export const STALE_CODES = new Set(['PGRST200', 'PGRST202', 'PGRST204', 'PGRST205', '42703']);

export function plan(cache: SchemaCache, r: Request, maxRows: number): Planned {
  if (r.target.kind === 'rpc') {
    if (!['GET', 'HEAD', 'POST'].includes(r.method))
      throw new RestError(405, 'PGRST101', `Cannot use the ${r.method} method on RPC`);
    return planRpc(cache, r, maxRows);
  }
  if (r.method === 'GET' || r.method === 'HEAD') return planRead(cache, r, maxRows);
  if (WRITE_METHODS.has(r.method)) return planMutation(cache, r, maxRows);
  throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${r.method}`);
}

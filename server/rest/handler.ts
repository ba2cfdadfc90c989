import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { RequestContext } from '../gateway/http.ts';
import { readJsonBody } from './body.ts';
import type { SchemaCacheHolder } from './cache.ts';
import { RestError, toRestError } from './errors.ts';
import {
  chooseSchema,
  parseAccept,
  parsePlan,
  parsePrefer,
  wantsStrippedNulls,
  type PlanRequest,
} from './parse/headers.ts';
import { openApi } from './openapi.ts';
import { plan, STALE_CODES, toResultRow, type Planned, type Request } from './request-plan.ts';
import { send, sendError, singularError } from './respond.ts';
import { runRequest, type StatementResult } from './run.ts';

export interface HandlerDeps {
  pool: pg.Pool;
  cache: SchemaCacheHolder;
  maxRows: number;
  maxBodyBytes: number;
  /** Most rows one insert or upsert may carry (the service role is not limited). */
  maxWriteRows: number;
}

function targetOf(path: string): Request['target'] {
  const parts = path.split('/').filter((p) => p !== '');
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    throw new RestError(404, 'PGRST125', 'Invalid path specified in request URL');
  }
  if (decoded.length === 2 && decoded[0] === 'rpc') return { kind: 'rpc', name: decoded[1]! };
  if (decoded.length === 1) return { kind: 'table', name: decoded[0]! };
  throw new RestError(404, 'PGRST125', 'Invalid path specified in request URL');
}

/** EXPLAIN of the main statement (rolled back: `analyze` runs it), as PostgREST's plan media types. */
async function sendPlan(
  deps: HandlerDeps,
  res: ServerResponse,
  claims: Parameters<typeof runRequest>[1],
  planned: Planned,
  want: PlanRequest,
  statementTimeout: string | undefined,
  schema: string,
): Promise<void> {
  const main = planned.statements[planned.result === -1 ? 0 : planned.result]!;
  const opts = [`format ${want.format}`, ...want.options.map((o) => `${o} true`)].join(', ');
  const results = await runRequest(deps.pool, claims, [{ sql: `explain (${opts}) ${main.sql}`, values: main.values }], {
    readOnly: planned.readOnly,
    statementTimeout,
    schema,
    rollback: true,
  });
  const lines = (results[0]?.rows ?? []).map((row) => row['QUERY PLAN'] ?? '');
  const body = want.format === 'json' ? (lines[0] ?? '[]') : lines.join('\n');
  const type = `application/vnd.pgrst.plan+${want.format}; for="${want.forType}"; charset=utf-8`;
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export async function handleRest(
  deps: HandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
): Promise<void> {
  const authenticated = ctx.role !== 'anon';
  try {
    const method = ctx.method;
    if ((method === 'GET' || method === 'HEAD') && ctx.path === '/') {
      const schema = chooseSchema(method, ctx.headers, deps.cache.schemas);
      const doc = JSON.stringify(openApi(await deps.cache.get(), schema, ctx.headers.host ?? ''));
      res.writeHead(200, {
        'content-type': 'application/openapi+json; charset=utf-8',
        'content-length': Buffer.byteLength(doc),
      });
      res.end(method === 'HEAD' ? undefined : doc);
      return;
    }
    const target = targetOf(ctx.path);
    const planWanted = parsePlan(ctx.headers.accept);
    if (planWanted && !(await deps.cache.get()).planEnabled) {
      throw new RestError(406, 'PGRST107', `None of these media types are available: ${ctx.headers.accept ?? ''}`);
    }
    const r: Request = {
      method,
      schema: chooseSchema(method, ctx.headers, deps.cache.schemas),
      target,
      format: planWanted ? parseAccept(planWanted.forType) : parseAccept(ctx.headers.accept),
      prefs: parsePrefer(ctx.headers.prefer),
      body:
        method === 'POST' || method === 'PATCH' || method === 'PUT' ? await readJsonBody(req, deps.maxBodyBytes) : null,
      ctx,
    };
    const rows = r.body && Array.isArray(r.body.json) ? r.body.json.length : 0;
    if (rows > deps.maxWriteRows && ctx.role !== 'service_role') {
      throw new RestError(
        413,
        'PGRST413',
        `Too many rows in one request: ${rows}, at most ${deps.maxWriteRows}`,
        null,
        'Send the rows in several smaller requests.',
      );
    }
    let cache = await deps.cache.get();
    let planned: Planned;
    try {
      planned = plan(cache, r, deps.maxRows);
    } catch (error) {
      if (!(error instanceof RestError) || !STALE_CODES.has(error.code)) throw error;
      const fresh = await deps.cache.refreshOnMiss();
      if (!fresh) throw error;
      cache = fresh;
      planned = plan(cache, r, deps.maxRows);
    }
    const claims = { role: ctx.role, claims: ctx.claims, method, path: `/rest/v1${ctx.path}`, headers: ctx.headers };
    if (planWanted) {
      await sendPlan(deps, res, claims, planned, planWanted, cache.roleTimeouts.get(ctx.role), r.schema);
      return;
    }
    const rollback = r.prefs.tx === 'rollback';
    const limit = r.prefs.handling === 'strict' && method !== 'GET' && method !== 'HEAD' ? r.prefs.maxAffected : null;
    const checks: ((res0: StatementResult[]) => void)[] = [];
    if (planned.checkBeforeCommit) {
      checks.push((res0) => {
        const row = toResultRow(res0[planned.result]?.rows[0]);
        if (row && row.page !== 1) throw singularError(row.page);
      });
    }
    if (limit !== null) {
      checks.push((res0) => {
        const affected =
          planned.result === -1 ? (res0[0]?.rowCount ?? 0) : (toResultRow(res0[planned.result]?.rows[0])?.page ?? 0);
        if (affected > limit) {
          throw new RestError(
            400,
            'PGRST124',
            'Query result exceeds max-affected preference constraint',
            `The query affects ${affected} rows`,
          );
        }
      });
    }
    const results = await runRequest(deps.pool, claims, planned.statements, {
      readOnly: planned.readOnly,
      statementTimeout: cache.roleTimeouts.get(ctx.role),
      schema: r.schema,
      rollback,
      check: checks.length > 0 ? (res0) => checks.forEach((c) => c(res0)) : undefined,
    });
    const mainIndex = planned.result === -1 ? 0 : planned.result;
    const main = results[mainIndex];
    const row = toResultRow(planned.result === -1 ? results[results.length - 1]?.rows[0] : main?.rows[0]);
    const out = planned.respond(row, main?.rowCount ?? 0, results);
    const rendered = r.format === 'csv' && row !== undefined && row.csvHead !== null;
    send(
      res,
      out.status,
      out.headers,
      out.body,
      r.format,
      method === 'HEAD',
      wantsStrippedNulls(ctx.headers.accept),
      rendered,
    );
  } catch (error) {
    sendError(res, toRestError(error, authenticated, ctx.method));
  }
}

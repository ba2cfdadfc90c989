import pg from 'pg';
import { beginStatement, isRequestRole, type RequestClaims } from '../postgres/pool.ts';

export interface Statement {
  sql: string;
  values: unknown[];
}

export interface RunOptions {
  readOnly: boolean;
  rollback: boolean;
  /** Inspects the results before the transaction ends; a throw rolls back (costs a round trip). */
  check?: ((results: pg.QueryResult[]) => void) | undefined;
}

/** Prepared statement names for the SQL texts seen most; capped so hostile variety cannot grow it. */
const names = new Map<string, string>();
const MAX_NAMED = 512;

function nameFor(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `pgrst_${names.size + 1}`;
    names.set(sql, name);
  }
  return name;
}

/** A pool of connections in pipeline mode: a request's statements go out in one write. */
export function createPipelinePool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, pipeline: true });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * withClaims, pipelined: `begin` with the role and request.* settings, the statements and
 * `commit` (or `rollback`) are sent without waiting for each other, so a request costs one
 * round trip. A failing statement aborts the transaction and the trailing commit rolls back.
 * Returns each statement's result; throws the first error.
 */
export async function runPipelined(pool: pg.Pool, request: RequestClaims, statements: Statement[], options: RunOptions): Promise<pg.QueryResult[]> {
  if (!isRequestRole(request.role)) throw new Error(`refusing to run as role ${String(request.role)}`);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    let begin = beginStatement(request);
    if (options.readOnly) begin = begin.replace(/^begin;/, 'begin read only;');
    const opening = client.query(begin);
    const running = statements.map((s) => client.query({ text: s.sql, values: s.values, name: nameFor(s.sql) }));
    const check = options.check;
    const closing = check ? [] : [client.query(options.rollback ? 'rollback' : 'commit')];
    const settled = await Promise.allSettled([opening, ...running, ...closing]);
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      const reason = failure.reason as { code?: unknown };
      // A server error leaves the connection usable; anything else (socket) discards it.
      if (typeof reason?.code !== 'string') broken = failure.reason instanceof Error ? failure.reason : new Error(String(failure.reason));
      if (check && !broken) await client.query('rollback');
      throw failure.reason;
    }
    const results = settled.slice(1, 1 + statements.length).map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value);
    if (check) {
      try {
        check(results);
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
      await client.query(options.rollback ? 'rollback' : 'commit');
    }
    return results;
  } finally {
    client.release(broken);
  }
}

import pg from 'pg';

/** The PostgreSQL roles a request may run as; anything else is refused before SQL. */
export const REQUEST_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];

export function isRequestRole(role: unknown): role is RequestRole {
  return typeof role === 'string' && (REQUEST_ROLES as readonly string[]).includes(role);
}

/** What a request knows about its caller and itself, exposed to SQL as request.* settings. */
export interface RequestClaims {
  role: RequestRole;
  claims: Record<string, unknown>;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
}

// Return timestamps, dates and intervals as PostgreSQL prints them, never as JS Dates:
// PostgREST returns text, and a Date round trip would lose precision and time zones.
for (const oid of [1082, 1083, 1114, 1184, 1266, 1186]) {
  pg.types.setTypeParser(oid, (value: string) => value);
}
// int8 and numeric stay strings in pg; PostgREST renders them as JSON numbers through
// to_json in SQL, so the parsers here only matter for internal queries.

/**
 * A connection that dies (PostgreSQL restarting: 57P01 admin_shutdown) must not crash the
 * backend. pg emits 'error' on a client that has no query running; the pool listens only
 * to idle clients, so a checked-out client between two queries would throw it unhandled.
 * Every client gets a listener of its own; the query in progress still fails normally,
 * and the broken client is discarded on release.
 */
export function guardPool(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function createPool(connectionString: string, max = 20): pg.Pool {
  return guardPool(new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 }));
}

function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The statement that opens a request's transaction with its role, request.* settings and any `extra` ones. */
export function beginStatement(request: RequestClaims, extra: [string, string][] = []): string {
  const settings: [string, string][] = [
    ['role', request.role],
    ['request.jwt.claims', JSON.stringify(request.claims)],
    ['request.method', request.method ?? ''],
    ['request.path', request.path ?? ''],
    ['request.headers', JSON.stringify(request.headers ?? {})],
    ...extra,
  ];
  const calls = settings.map(([k, v]) => `set_config(${literal(k)}, ${literal(v)}, true)`).join(', ');
  return `begin; select ${calls};`;
}

/**
 * The one transaction scaffold: `begin` opens it (plain, or with a role and settings),
 * `fn` runs, then commit (or rollback when `rollback`), and rollback on a throw. A client
 * whose rollback fails too is broken and is released to be destroyed, not reused.
 */
async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  fn: (client: pg.PoolClient) => Promise<T>,
  rollback = false,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query(rollback ? 'rollback' : 'commit');
    return result;
  } catch (error) {
    try {
      await client.query('rollback');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Runs `fn` in one transaction as the request's role with `request.jwt.claims`,
 * `request.method`, `request.path` and `request.headers` set, so RLS and SQL functions
 * see what they see on hosted Supabase. Commits on success, rolls back on a throw, or
 * always when `rollback` is true (Prefer: tx=rollback). `settings` are set for the
 * transaction too (storage's `storage.allow_delete_query`).
 */
export async function withClaims<T>(
  pool: pg.Pool,
  request: RequestClaims,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: { rollback?: boolean; settings?: [string, string][] } = {},
): Promise<T> {
  if (!isRequestRole(request.role)) throw new Error(`refusing to run as role ${String(request.role)}`);
  return inTransaction(pool, beginStatement(request, options.settings), fn, options.rollback);
}

/** A transaction as the superuser, for the backend's own bookkeeping. */
export function asAdmin<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, 'begin', fn);
}

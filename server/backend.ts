import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { adminDatabaseUrl, defaultConfig, databaseUrl, type BackendConfig } from './config.ts';
import { createGateway } from './gateway/server.ts';
import { demoKeys } from './jwt.ts';
import { startCluster, type Cluster } from './postgres/cluster.ts';
import { bootstrap, migrate, seed } from './postgres/migrate.ts';
import { createPool } from './postgres/pool.ts';
import { isShutdownNoise, postgresLogFilter, RequestTally } from './log.ts';
import type { BackendDeps, BackendService } from './service.ts';
import { createAuthService } from './auth/index.ts';
import { MAILBOX_PREFIX, createMailboxService } from './auth/mailbox.ts';
import { createRestService } from './rest/index.ts';
import { createStorageService } from './storage/index.ts';
import { createRealtimeService } from './realtime/index.ts';
import { createFunctionsService } from './functions/index.ts';

export interface StartOptions extends Partial<BackendConfig> {
  /** Use this running database instead of starting a cluster (tests run extra gateways). */
  externalDatabaseUrl?: string;
  log?: (line: string) => void;
}

export interface Backend {
  url: string;
  port: number;
  config: BackendConfig;
  /** The project's connection string, as `postgres` (not a superuser), as on hosted. */
  databaseUrl: string;
  /** The superuser supabase_admin's, for the backend itself and tests that arrange the platform. */
  adminDatabaseUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  /** The local mail catcher's page; its JSON is under `${mailboxUrl}/api/messages`. */
  mailboxUrl: string;
  pool: pg.Pool;
  /** True when this start initialised a new data directory. */
  fresh: boolean;
  /** Migration files applied by this start. */
  applied: string[];
  /** What was served so far, in one line (server/log.ts), for the terminal at stop. */
  summary(): string;
  stop(): Promise<void>;
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** SQLSTATEs of a refused login: no such role, or it may not log in / wrong password. */
const LOGIN_REFUSED = new Set(['28000', '28P01']);

/**
 * The superuser's connection. A data dir made before the hosted-like platform has only
 * `postgres` as superuser (initdb's user): it gets a supabase_admin, and keeps `postgres`
 * a superuser, since PostgreSQL never demotes its bootstrap superuser.
 */
async function adminClient(url: string, log: (line: string) => void): Promise<pg.Client> {
  const adminUrl = adminDatabaseUrl(url);
  try {
    return await connected(adminUrl);
  } catch (error) {
    if (!LOGIN_REFUSED.has((error as { code?: string }).code ?? '')) throw error;
  }
  const legacy = await connected(url);
  try {
    const password = decodeURIComponent(new URL(url).password);
    await legacy.query(`do $$ begin
      if not exists (select 1 from pg_roles where rolname = 'supabase_admin') then create role supabase_admin; end if;
    end $$`);
    await legacy.query(`alter role supabase_admin superuser login password ${escapeLiteral(password)}`);
  } finally {
    await legacy.end();
  }
  log('[backend] this data dir predates the hosted-like platform: added the superuser supabase_admin');
  return connected(adminUrl);
}

function escapeLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * The platform (as supabase_admin), then the migrations and the seed, each as `postgres`
 * on a connection of its own opened after the bootstrap, as hosted and the CLI run them.
 */
async function prepareDatabase(url: string, config: BackendConfig, log: (line: string) => void): Promise<string[]> {
  const admin = await adminClient(url, log);
  try {
    await bootstrap(admin);
    const legacy = await admin.query<{ rolsuper: boolean }>(`select rolsuper from pg_roles where rolname = 'postgres'`);
    if (legacy.rows[0]?.rolsuper) {
      log(
        '[backend] postgres is a superuser in this data dir (it was created before the hosted-like platform): ' +
          'migrations here may pass where hosted refuses them. Start from a fresh data dir to check them as hosted does.',
      );
    }
  } finally {
    await admin.end();
  }
  const migrator = await connected(url);
  let applied: string[];
  try {
    applied = await migrate(migrator, path.join(config.supabaseDir, 'migrations'));
  } finally {
    await migrator.end();
  }
  const seeder = await connected(url);
  try {
    const seeded = await seeder.query(`select 1 from supabase_migrations.seed_files limit 1`);
    if (seeded.rowCount === 0) {
      const file = path.join(config.supabaseDir, 'seed.sql');
      if (existsSync(file)) await seed(seeder, file);
      await seeder.query(`insert into supabase_migrations.seed_files (path, hash) values ('seed.sql', md5($1))`, [
        existsSync(file) ? file : '',
      ]);
    }
  } finally {
    await seeder.end();
  }
  return applied;
}

/**
 * Starts the embedded backend: PostgreSQL, the platform bootstrap, migrations and seed,
 * the services, then the gateway. Start-up order is reversed on stop.
 */
export async function startBackend(options: StartOptions = {}): Promise<Backend> {
  const { externalDatabaseUrl, log: print = (line: string) => console.log(line), ...overrides } = options;
  const config = defaultConfig(overrides);
  // Once stopping, lost connections are expected (PostgreSQL may get the terminal's Ctrl-C
  // before we close our clients): concise logs drop them.
  let stopping = false;
  const log = (line: string): void => {
    if (config.verbose || (!stopping && !isShutdownNoise(line))) print(line);
  };
  const postgresLog = postgresLogFilter(config.verbose);
  const tally = new RequestTally();
  let cluster: Cluster | null = null;
  if (!externalDatabaseUrl) {
    cluster = await startCluster({
      dataDir: config.dataDir,
      port: config.dbPort,
      host: config.host,
      onLog: (line) => {
        // The supervisor's own lines (crash, restart) always; PostgreSQL's through the
        // concise filter (server/log.ts): problems only unless --verbose.
        if (line.startsWith('[postgres] ')) log(line);
        else for (const kept of postgresLog.lines(line)) log(`[postgres] ${kept}`);
      },
    });
  }
  const dbUrl = externalDatabaseUrl ?? databaseUrl(config);
  const pools: pg.Pool[] = [];
  const services: BackendService[] = [];
  let server: ReturnType<typeof createGateway> | null = null;
  const stop = async (): Promise<void> => {
    stopping = true;
    if (server) {
      const s = server;
      server = null;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    for (const service of [...services].reverse())
      await service.close?.().catch((e: unknown) => log(`[backend] close: ${String(e)}`));
    for (const pool of pools) await pool.end().catch(() => undefined);
    if (cluster) await cluster.stop();
    cluster = null;
  };
  try {
    const applied = await prepareDatabase(dbUrl, config, log);
    const adminUrl = adminDatabaseUrl(dbUrl);
    const pool = createPool(adminUrl);
    pools.push(pool);
    const { anonKey, serviceRoleKey } = demoKeys(config.jwtSecret);
    let port = config.port;
    const deps: BackendDeps = {
      config,
      pool,
      databaseUrl: dbUrl,
      adminDatabaseUrl: adminUrl,
      anonKey,
      serviceRoleKey,
      apiUrl: () => `http://${config.host}:${port}`,
      log,
    };
    const auth = createAuthService(deps);
    services.push(
      auth,
      createMailboxService(auth.mailbox),
      createRestService(deps),
      createStorageService(deps),
      createRealtimeService(deps),
      createFunctionsService(deps),
    );
    for (const service of services) await service.start?.();
    const running = cluster;
    const gateway = createGateway(services, {
      jwtSecret: config.jwtSecret,
      logRequests: config.logRequests || config.verbose,
      log,
      tally,
      allowedOrigins: config.allowedOrigins,
      limits: config.callerLimits,
      ...(running ? { databaseUp: () => running.up } : {}),
    });
    server = gateway;
    await new Promise<void>((resolve, reject) => {
      gateway.once('error', reject);
      gateway.listen(config.port, config.host, () => resolve());
    });
    port = (gateway.address() as AddressInfo).port;
    return {
      url: `http://${config.host}:${port}`,
      mailboxUrl: `http://${config.host}:${port}${MAILBOX_PREFIX}`,
      port,
      config: { ...config, port },
      databaseUrl: dbUrl,
      adminDatabaseUrl: adminUrl,
      anonKey,
      serviceRoleKey,
      pool,
      fresh: cluster?.fresh ?? false,
      applied,
      summary: () => tally.summary(postgresLog.refused),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

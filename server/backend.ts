import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { defaultConfig, databaseUrl, type BackendConfig } from './config.ts';
import { createGateway } from './gateway/server.ts';
import { demoKeys } from './jwt.ts';
import { startCluster, type Cluster } from './postgres/cluster.ts';
import { bootstrap, migrate, seed } from './postgres/migrate.ts';
import { createPool } from './postgres/pool.ts';
import { isShutdownNoise, postgresLogFilter, RequestTally } from './log.ts';
import type { BackendDeps, BackendService } from './service.ts';
import { createAuthService } from './auth/index.ts';
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
  databaseUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  pool: pg.Pool;
  /** True when this start initialised a new data directory. */
  fresh: boolean;
  /** Migration files applied by this start. */
  applied: string[];
  /** What was served so far, in one line (server/log.ts), for the terminal at stop. */
  summary(): string;
  stop(): Promise<void>;
}

async function prepareDatabase(url: string, config: BackendConfig): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await bootstrap(client);
    const applied = await migrate(client, path.join(config.supabaseDir, 'migrations'));
    const seeded = await client.query(`select 1 from supabase_migrations.seed_files limit 1`);
    if (seeded.rowCount === 0) {
      const file = path.join(config.supabaseDir, 'seed.sql');
      if (existsSync(file)) await seed(client, file);
      await client.query(`insert into supabase_migrations.seed_files (path, hash) values ('seed.sql', md5($1))`, [
        existsSync(file) ? file : '',
      ]);
    }
    return applied;
  } finally {
    await client.end();
  }
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
      onLog: (chunk) => {
        for (const line of postgresLog.lines(chunk)) log(`[postgres] ${line}`);
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
    for (const service of [...services].reverse()) await service.close?.().catch((e: unknown) => log(`[backend] close: ${String(e)}`));
    for (const pool of pools) await pool.end().catch(() => undefined);
    if (cluster) await cluster.stop();
    cluster = null;
  };
  try {
    const applied = await prepareDatabase(dbUrl, config);
    const pool = createPool(dbUrl);
    pools.push(pool);
    const { anonKey, serviceRoleKey } = demoKeys(config.jwtSecret);
    let port = config.port;
    const deps: BackendDeps = {
      config,
      pool,
      databaseUrl: dbUrl,
      anonKey,
      serviceRoleKey,
      apiUrl: () => `http://${config.host}:${port}`,
      log,
    };
    services.push(
      createAuthService(deps),
      createRestService(deps),
      createStorageService(deps),
      createRealtimeService(deps),
      createFunctionsService(deps),
    );
    for (const service of services) await service.start?.();
    const gateway = createGateway(services, { jwtSecret: config.jwtSecret, logRequests: config.logRequests || config.verbose, log, tally });
    server = gateway;
    await new Promise<void>((resolve, reject) => {
      gateway.once('error', reject);
      gateway.listen(config.port, config.host, () => resolve());
    });
    port = (gateway.address() as AddressInfo).port;
    return {
      url: `http://${config.host}:${port}`,
      port,
      config: { ...config, port },
      databaseUrl: dbUrl,
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

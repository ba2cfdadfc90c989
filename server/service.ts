import type pg from 'pg';
import type { BackendConfig } from './config.ts';
import type { Service } from './gateway/server.ts';

/** What every service is built from: one config, one pool, one log, the demo keys. */
export interface BackendDeps {
  config: BackendConfig;
  /** Pool of superuser (supabase_admin) connections; requests switch role through withClaims. */
  pool: pg.Pool;
  /** The project's connection string, as `postgres` (not a superuser): SUPABASE_DB_URL. */
  databaseUrl: string;
  /** The superuser's, for services that need their own connections (replication, LISTEN). */
  adminDatabaseUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Public URL of the gateway, e.g. http://127.0.0.1:54321. */
  apiUrl: () => string;
  log: (line: string) => void;
}

/** A service's life: built before the HTTP server listens, closed after it stops. */
export interface BackendService extends Service {
  /** Runs after migrations, before the gateway listens (schema cache, replication). */
  start?(): Promise<void>;
  /** Runs on shutdown, in reverse order of start. */
  close?(): Promise<void>;
}

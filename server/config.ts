import path from 'node:path';
import { DEFAULT_CALLER_LIMITS, type CallerLimits } from './gateway/limits.ts';

/** Everything the embedded backend can be told, in one typed object. */
export interface BackendConfig {
  /** Interface every listener binds to. */
  host: string;
  /** API gateway port (Supabase CLI default 54321). */
  port: number;
  /** PostgreSQL port (Supabase CLI default 54322). */
  dbPort: number;
  /** Directory holding the database cluster, storage bytes and state. */
  dataDir: string;
  /** Directory with migrations/, seed.sql, functions/ and config.toml. */
  supabaseDir: string;
  /** Edge functions directory; defaults to `<supabaseDir>/functions`. */
  functionsDir: string;
  jwtSecret: string;
  /** Access token lifetime in seconds. */
  jwtExpiry: number;
  /** Sign-ups are confirmed at once unless this is false. */
  autoConfirm: boolean;
  /** Largest request body the gateway accepts, in bytes. */
  maxBodyBytes: number;
  /** Largest upload storage accepts, in bytes. */
  maxUploadBytes: number;
  /** PostgREST's db-max-rows. */
  maxRows: number;
  /** Most rows one REST insert or upsert may carry; more is a 413 (service role exempt). */
  maxWriteRows: number;
  /** Per-caller request limits at the gateway (see gateway/limits.ts). */
  callerLimits: CallerLimits;
  /**
   * Browser origins the gateway answers CORS for, besides loopback ones (the app is
   * served from 127.0.0.1/localhost, on whatever port). `*` allows every origin.
   */
  allowedOrigins: string[];
  /** Log one line per request. */
  logRequests: boolean;
  /** Print every request and every PostgreSQL message (server/log.ts); concise otherwise. */
  verbose: boolean;
}

export const DEFAULT_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

export function defaultConfig(overrides: Partial<BackendConfig> = {}): BackendConfig {
  const supabaseDir = overrides.supabaseDir ?? path.resolve('supabase');
  return {
    host: '127.0.0.1',
    port: 54321,
    dbPort: 54322,
    dataDir: path.resolve('.chartroom'),
    jwtSecret: DEFAULT_JWT_SECRET,
    jwtExpiry: 3600,
    autoConfirm: true,
    maxBodyBytes: 1024 * 1024,
    maxUploadBytes: 50 * 1024 * 1024,
    maxRows: 1000,
    maxWriteRows: 5000,
    callerLimits: DEFAULT_CALLER_LIMITS,
    allowedOrigins: [],
    logRequests: false,
    verbose: false,
    ...overrides,
    supabaseDir,
    functionsDir: overrides.functionsDir ?? path.join(supabaseDir, 'functions'),
  };
}

/** The connection string a caller outside the backend uses (SUPABASE_DB_URL): `postgres`, not a superuser. */
export function databaseUrl(config: BackendConfig): string {
  return `postgresql://postgres:postgres@${config.host}:${config.dbPort}/postgres`;
}

/** The superuser, as hosted's platform services have it: the same database as `url`, as supabase_admin. */
export function adminDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = 'supabase_admin';
  return parsed.toString();
}

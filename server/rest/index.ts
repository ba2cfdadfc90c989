import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import type { RequestContext } from '../gateway/http.ts';
import type { JwtError } from '../jwt.ts';
import type { BackendDeps, BackendService } from '../service.ts';
import { SchemaCacheHolder } from './cache.ts';
import { RestError } from './errors.ts';
import { handleRest } from './handler.ts';
import { sendError } from './respond.ts';
import { createRestPool } from './run.ts';

export interface RestOptions {
  /** Schemas reachable through Accept-Profile/Content-Profile; the first is the default. */
  schemas?: string[];
  /** Connections of the REST pool. */
  poolSize?: number;
}

/** Schemas from options, else PGRST_DB_SCHEMAS (PostgREST's setting), else `public`. */
function exposedSchemas(options: RestOptions): string[] {
  if (options.schemas && options.schemas.length > 0) return options.schemas;
  const env = process.env.PGRST_DB_SCHEMAS;
  const list = env
    ? env
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
  return list.length > 0 ? list : ['public'];
}

/** The PostgREST-compatible service under /rest/v1: parse, plan, run (one transaction), respond. */
export function createRestService(deps: BackendDeps, options: RestOptions = {}): BackendService {
  const schemas = exposedSchemas(options);
  let pool: pg.Pool | null = null;
  let cache: SchemaCacheHolder | null = null;
  return {
    prefix: '/rest/v1',
    async start() {
      pool = createRestPool(deps.adminDatabaseUrl, options.poolSize ?? 16);
      cache = new SchemaCacheHolder(deps.pool, deps.adminDatabaseUrl, schemas, deps.log);
      await cache.start();
    },
    async close() {
      await cache?.close();
      await pool?.end().catch(() => undefined);
      cache = null;
      pool = null;
    },
    handle(req, res, ctx: RequestContext) {
      if (!pool || !cache) {
        sendError(res, new RestError(500, 'PGRST002', 'Could not query the database for the schema cache. Retrying.'));
        return Promise.resolve();
      }
      return handleRest(
        {
          pool,
          cache,
          maxRows: deps.config.maxRows,
          maxBodyBytes: deps.config.maxBodyBytes,
          maxWriteRows: deps.config.maxWriteRows,
        },
        req,
        res,
        ctx,
      );
    },
    rejectToken(res: ServerResponse, error: JwtError) {
      const expired = error.reason === 'expired';
      sendError(
        res,
        new RestError(401, expired ? 'PGRST303' : 'PGRST301', expired ? 'JWT expired' : error.message, null, null, {
          'www-authenticate': expired
            ? 'Bearer error="invalid_token", error_description="JWT expired"'
            : 'Bearer error="invalid_token", error_description="invalid JWT"',
        }),
      );
    },
  };
}

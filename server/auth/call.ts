import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { asAdmin } from '../postgres/pool.ts';
import type { RequestContext } from '../gateway/http.ts';
import type { Mailbox } from './mailbox.ts';
import type { AuthOptions } from './options.ts';
import type { SignInLimiter } from './rate-limit.ts';
import { readJsonObject, type JsonObject } from './request.ts';
import type { ClientInfo, TokenSigner } from './sessions.ts';

/** What every route handler gets: the request, the gateway's context and the service's parts. */
export interface Call {
  req: IncomingMessage;
  ctx: RequestContext;
  pool: pg.Pool;
  options: AuthOptions;
  signer: TokenSigner;
  limiter: SignInLimiter;
  /** Where every mail the service sends lands. */
  mailbox: Mailbox;
  /** The gateway's public URL, for pagination links. */
  apiUrl: () => string;
  log: (line: string) => void;
}

/** A handler's answer; the service renders it (and errors) in one place. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (call: Call) => Promise<Reply>;

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });

export function body(call: Call, optional = false): Promise<JsonObject> {
  return readJsonObject(call.req, call.options.maxBodyBytes, optional);
}

/** The service clock as an ISO timestamp for SQL parameters, and in milliseconds. */
export function clock(call: Call): { nowMs: number; now: string } {
  const nowMs = call.options.now();
  return { nowMs, now: new Date(nowMs).toISOString() };
}

export function clientInfo(call: Call): ClientInfo {
  const ip = call.ctx.ip.replace(/^::ffff:/, '');
  return {
    userAgent: call.ctx.headers['user-agent'] ?? null,
    ip: /^[0-9a-fA-F:.]+$/.test(ip) ? ip : null,
  };
}

/**
 * asAdmin, run again once when PostgreSQL broke a deadlock by aborting it (40P01): the
 * transaction was rolled back whole, so a second run is safe for work without side effects
 * outside the database. (A gateway starting on the same database re-runs platform DDL.)
 */
export async function asAdminRetrying<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  try {
    return await asAdmin(pool, fn);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== '40P01') throw error;
    return asAdmin(pool, fn);
  }
}

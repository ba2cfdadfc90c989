import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { startBackend, type Backend } from '../../server/backend.ts';
import type { AuthTuning } from '../../server/auth/options.ts';
import { backendInfo, type AnyClient } from '../setup/clients.ts';

/** Raw fetch against /auth/v1 of the test backend (or another gateway), for headers and shapes. */
export async function authFetch(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    rawBody?: string;
    token?: string | null;
    legacy?: boolean;
    base?: string;
  } = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | null }> {
  const { anonKey, url } = backendInfo();
  const headers: Record<string, string> = { apikey: anonKey, 'content-type': 'application/json' };
  if (!init.legacy) headers['x-supabase-api-version'] = '2024-01-01';
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? anonKey}`;
  const response = await fetch(`${init.base ?? url}/auth/v1${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

/** Decodes a JWT's claims without verifying (the backend already did). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * A second gateway on the shared test database, with its own auth tuning (clock, limits,
 * autoConfirm). Its in-memory state (rate limits) is its own.
 */
export async function secondGateway(
  options: { autoConfirm?: boolean; auth?: AuthTuning; jwtSecret?: string } = {},
): Promise<{ backend: Backend; client: () => AnyClient }> {
  const backend = await startBackend({
    externalDatabaseUrl: backendInfo().databaseUrl,
    port: 0,
    logRequests: false,
    log: () => undefined,
    ...options,
  });
  const client = () =>
    createClient(backend.url, backend.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as never },
    });
  return { backend, client };
}

/** A clock tests move by hand. */
export function manualClock(start = Date.now()) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

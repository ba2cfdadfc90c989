import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { signJwt } from '../../../server/jwt.ts';
import { adminDb, backendInfo, superDb, type AnyClient } from '../../setup/clients.ts';

/** An HS256 access token for a signed-in user, as the auth service would mint it. */
export function userToken(sub: string, extra: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600, ...extra },
    backendInfo().jwtSecret,
  );
}

/** A supabase-js client acting as the user `sub` (its JWT passed as the Authorization header). */
export function userClient(sub: string): AnyClient {
  const { url, anonKey } = backendInfo();
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
    global: { headers: { Authorization: `Bearer ${userToken(sub)}` } },
  });
}

/** A raw request to /rest/v1 with the anon key unless headers say otherwise. */
export function rest(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  const { url, anonKey } = backendInfo();
  return fetch(`${url}/rest/v1${path}`, { ...init, headers: { apikey: anonKey, ...init.headers } });
}

/** Runs setup SQL as postgres (as a migration would), then waits until the REST schema cache sees `table`. */
export async function arrange(sql: string, table: string): Promise<void> {
  const db = await adminDb();
  try {
    await db.query(sql);
  } finally {
    await db.end();
  }
  const { serviceRoleKey } = backendInfo();
  for (let i = 0; i < 100; i++) {
    const res = await rest(`/${table}?limit=0`, { headers: { authorization: `Bearer ${serviceRoleKey}` } });
    if (res.status !== 404) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the schema cache never saw ${table}`);
}

/** A query as postgres, for arranging and checking effects; `superuser` for what only the platform may do. */
export async function sql<T extends Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
  superuser = false,
): Promise<T[]> {
  const db = await (superuser ? superDb() : adminDb());
  try {
    return (await db.query<T>(text, values)).rows;
  } finally {
    await db.end();
  }
}

/** A response body as JSON, typed by the caller. */
export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

export type Row = Record<string, unknown>;

import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { inject } from 'vitest';
import WebSocket from 'ws';

/** An untyped client: tests create their own tables. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyClient = SupabaseClient<any, any, any>;

export function backendInfo() {
  return inject('backend');
}

/** A real supabase-js client against the test backend; no session persistence between tests. */
export function anonClient(options: { vsn?: '1.0.0' | '2.0.0' } = {}): AnyClient {
  const { url, anonKey } = backendInfo();
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never, ...(options.vsn ? { vsn: options.vsn } : {}) },
  });
}

export function serviceClient(): AnyClient {
  const { url, serviceRoleKey } = backendInfo();
  return createClient(url, serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

/** A unique, valid email for one test. */
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${randomUUID().slice(0, 8)}@example.test`;
}

/** Signs up a fresh user and returns a client holding its session. */
export async function signedInClient(tag = 'user', options: { vsn?: '1.0.0' | '2.0.0' } = {}) {
  const client = anonClient(options);
  const email = uniqueEmail(tag);
  const password = 'correct-horse-battery';
  const { data, error } = await client.auth.signUp({ email, password });
  if (error) throw error;
  if (!data.session || !data.user) throw new Error('sign-up returned no session');
  return { client, email, password, user: data.user, session: data.session };
}

/**
 * A connection to the test database as `postgres` (not a superuser, as on hosted), for
 * arranging fixtures and checking effects: a fixture needing more than postgres has on
 * hosted would hide a migration that cannot deploy.
 */
export async function adminDb(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: backendInfo().databaseUrl });
  await client.connect();
  return client;
}

/** A superuser (supabase_admin) connection: only for what the platform itself does (killing its backends). */
export async function superDb(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: backendInfo().adminDatabaseUrl });
  await client.connect();
  return client;
}

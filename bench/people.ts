import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Database } from '../src/adapters/supabase/database.types.ts';

/** A bench's signed-up person: a supabase-js client (Node WebSocket for realtime) and their id. */
export async function benchPerson(
  url: string,
  anonKey: string,
  tag: string,
): Promise<{ client: SupabaseClient<Database>; id: string }> {
  const client = createClient<Database>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
  const { data, error } = await client.auth.signUp({
    email: `bench-${tag}-${Date.now()}@example.test`,
    password: 'bench-password-1',
  });
  if (error || !data.user) throw error ?? new Error('no user');
  return { client, id: data.user.id };
}

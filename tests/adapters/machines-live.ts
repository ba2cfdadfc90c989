import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { DocumentPort } from '../../src/lib/ports/document.ts';
import { backendInfo } from '../setup/clients.ts';
import type { Person } from './machines-fixtures.ts';

/**
 * A person's device for the live tests: a real supabase-js client whose network can be
 * cut (its fetch fails like a dropped connection; its socket is closed), the real
 * machines adapter over it, and the document machine's actors built from the port the
 * way the composition root builds them.
 */

export interface Device {
  client: SupabaseClient<Database>;
  port: DocumentPort;
  goOffline(): void;
  goOnline(): void;
}

export async function deviceFor(person: Person): Promise<Device> {
  const { url, anonKey } = backendInfo();
  let offline = false;
  const gatedFetch: typeof fetch = (input, init) =>
    offline ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
  const client = createClient<Database>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
    global: { fetch: gatedFetch },
  });
  const { error } = await client.auth.signInWithPassword({ email: person.email, password: person.password });
  if (error) throw error;
  return {
    client,
    port: createMachinesAdapter(client),
    goOffline() {
      offline = true;
      void client.realtime.disconnect();
    },
    goOnline() {
      offline = false;
      client.realtime.connect();
    },
  };
}

/** A Web Storage stand-in: what the browser's localStorage does, in memory. */
export function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

// The composition root's wiring, so these tests run the document machine as the app does.
export { documentActors } from '../../src/app/canvas.ts';

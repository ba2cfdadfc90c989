import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { fromCallback, fromEventObservable, fromPromise } from 'xstate';
import type { QueueCommand } from '../../machines/document.machine.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { DocumentPort, QueueStore } from '../../src/lib/ports/document.ts';
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
  const gatedFetch: typeof fetch = (input, init) => (offline ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init));
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

export function documentActors(port: DocumentPort, store: QueueStore) {
  return {
    loadQueue: fromPromise(({ input }: { input: { machineId: string } }) => store.load(input.machineId)),
    loadMachine: fromPromise(({ input }: { input: { machineId: string } }) => port.loadMachine(input.machineId)),
    commitOps: fromPromise(({ input }: { input: Parameters<DocumentPort['commitOps']>[0] }) => port.commitOps(input)),
    fetchOps: fromPromise(({ input }: { input: { machineId: string; after: number } }) => port.opsSince(input.machineId, input.after)),
    opEvents: fromEventObservable(({ input }: { input: { machineId: string } }) => port.opEvents$(input.machineId)),
    queueStore: fromCallback<QueueCommand, { machineId: string }>(({ receive, input }) => {
      receive((command) => store.save(input.machineId, command.snapshot));
    }),
  };
}

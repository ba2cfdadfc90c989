import { randomUUID } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Database } from '../src/adapters/supabase/database.types.ts';

/**
 * The append-cpu bench's caller, in a process of its own so its CPU is not the backend's:
 * `count` one-op appends over `lanes` parallel lanes, each the request the app makes
 * (supabase-js rpc commit_machine_ops as a signed-in editor). Options: CHARTROOM_APPEND_CPU
 * (JSON). Signs in, says 'ready' over IPC, appends on 'go', says 'done' (or 'failed').
 */
const options = JSON.parse(process.env.CHARTROOM_APPEND_CPU ?? '{}') as {
  url: string;
  anonKey: string;
  email: string;
  password: string;
  machineId: string;
  count: number;
  lanes: number;
};
const client = createClient<Database>(options.url, options.anonKey, {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  realtime: { transport: WebSocket as never },
});
const signedIn = await client.auth.signInWithPassword({ email: options.email, password: options.password });
if (signedIn.error) throw signedIn.error;
const send = (message: { step: string; error?: string }) =>
  new Promise<void>((resolve) => process.send!(message, () => resolve()));
await new Promise<void>((resolve) => {
  process.once('message', () => resolve());
  void send({ step: 'ready' });
});
let next = 0;
const lane = async (): Promise<void> => {
  while (next < options.count) {
    const i = next++;
    const { error } = await client.rpc('commit_machine_ops', {
      p_machine: options.machineId,
      p_client_id: 'append-cpu',
      p_batch_id: randomUUID(),
      p_ops: [{ type: 'state.rename', id: 's_0', key: `k${i}` }],
    });
    if (error) throw new Error(error.message);
  }
};
try {
  await Promise.all(Array.from({ length: options.lanes }, lane));
  await send({ step: 'done' });
} catch (error) {
  await send({ step: 'failed', error: error instanceof Error ? error.message : String(error) });
}
process.exit(0);

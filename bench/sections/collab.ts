import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import type { MachineDefinition, StateNode } from '../../src/lib/model/types.ts';
import { emptyDefinition } from '../../tests/adapters/machines-fixtures.ts';
import { benchBackend } from '../backend.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * Collaboration over the embedded backend, two signed-in supabase-js clients in Node:
 * - commit round trip: commit_machine_ops through the machines adapter, one op per
 *   batch carrying the resulting definition (as the document machine sends it), for a
 *   small and a 200-state definition;
 * - remote edit: from A starting a commit to B's machine_ops stream delivering the op
 *   (issue 5's aim: p95 under 50 ms), plus the part after A's receipt.
 */

const COMMITS = 200;
const WARMUP = 20;

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A definition with `n` atomic states under the root, about the size people draw. */
function definitionWith(n: number): MachineDefinition {
  const def = emptyDefinition(`bench-${n}`);
  const root = def.states[def.root] as StateNode;
  const states: Record<string, StateNode> = {};
  const children: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `s_${i}`;
    children.push(id);
    states[id] = { ...root, id, key: `state${i}`, parent: def.root, type: 'atomic', children: [], description: `State number ${i}`, tags: ['bench'] };
  }
  return { ...def, states: { ...def.states, [def.root]: { ...root, children, initial: children[0] ?? null }, ...states } };
}

async function person(url: string, anonKey: string, tag: string): Promise<{ client: SupabaseClient<Database>; id: string }> {
  const client = createClient<Database>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
  const { data, error } = await client.auth.signUp({ email: `${tag}-${randomUUID().slice(0, 8)}@example.test`, password: 'correct-horse-battery' });
  if (error || !data.user) throw error ?? new Error('no user');
  return { client, id: data.user.id };
}

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend();
  const a = await person(backend.url, backend.anonKey, 'bench-a');
  const b = await person(backend.url, backend.anonKey, 'bench-b');
  try {
    const project = await a.client.from('projects').insert({ name: 'bench' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const added = await a.client.from('project_members').insert({ project_id: project.data.id, user_id: b.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw new Error(added.error.message);
    const portA = createMachinesAdapter(a.client);
    const portB = createMachinesAdapter(b.client);

    for (const size of [0, 200]) {
      const definition = definitionWith(size);
      const created = await portA.createMachine({ projectId: project.data.id, name: `bench ${size}`, definition });
      if (!created.ok) throw new Error(created.error.message);
      const machineId = created.value.id;

      const arrivals = new Map<number, number>();
      let subscribed!: () => void;
      const ready = new Promise<void>((resolve) => (subscribed = resolve));
      const sub = portB.opEvents$(machineId).subscribe((event) => {
        if (event.type === 'ops.subscribed') subscribed();
        if (event.type === 'ops.received') for (const op of event.ops) arrivals.set(op.seq, now());
      });
      await ready;

      const started = new Map<number, number>();
      const receipts = new Map<number, number>();
      const roundTrips: number[] = [];
      for (let i = 0; i < WARMUP + COMMITS; i++) {
        const seq = i + 1;
        const t0 = now();
        started.set(seq, t0);
        const result = await portA.commitOps({
          machineId,
          base: i,
          clientId: 'bench-a',
          batchId: randomUUID(),
          ops: [{ type: 'machine.update', changes: { name: `rename ${i}` } }],
          definition: { ...definition, name: `rename ${i}` },
        });
        if (!result.ok) throw new Error(result.error.message);
        const t1 = now();
        receipts.set(seq, t1);
        if (i >= WARMUP) roundTrips.push(t1 - t0);
      }
      const deadline = Date.now() + 5_000;
      while (arrivals.size < WARMUP + COMMITS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      sub.unsubscribe();

      const remote: number[] = [];
      const afterReceipt: number[] = [];
      for (let seq = WARMUP + 1; seq <= WARMUP + COMMITS; seq++) {
        const arrived = arrivals.get(seq);
        if (arrived === undefined) continue;
        remote.push(arrived - (started.get(seq) ?? arrived));
        afterReceipt.push(arrived - (receipts.get(seq) ?? arrived));
      }
      const label = size === 0 ? 'empty definition' : `${size}-state definition (${(JSON.stringify(definition).length / 1024).toFixed(0)} KB)`;
      ctx.section(`collab: ${label}, ${COMMITS} sequential commits`);
      const rt = summarize(roundTrips);
      ctx.report('commit round trip p50 / p95', `${ms(rt.p50)} / ${ms(rt.p95)}`);
      const r = summarize(remote);
      ctx.report('remote edit (A commits -> B receives) p50 / p95', `${ms(r.p50)} / ${ms(r.p95)}`, 'p95 < 50 ms');
      const ar = summarize(afterReceipt);
      ctx.report('B receives after A\'s receipt p50 / p95', `${ms(ar.p50)} / ${ms(ar.p95)}`);
      ctx.report('ops delivered to B', `${remote.length} / ${COMMITS}`);
    }
  } finally {
    await a.client.removeAllChannels();
    await b.client.removeAllChannels();
    await backend.cleanup();
  }
}

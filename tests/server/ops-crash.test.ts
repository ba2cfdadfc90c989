import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { Backend } from '../../server/backend.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { createDoc, receive } from '../../src/lib/collab/doc.ts';
import type { CommitReceipt } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { emptyDefinition } from '../adapters/machines-fixtures.ts';
import { crashBackend } from './crash-helpers.ts';
import { until } from './realtime-helpers.ts';

/**
 * PostgreSQL killed (SIGKILL of the postmaster) while editors append to one machine's op
 * log through the app's own adapter, each resending a batch under the same id until it
 * is answered, as the document machine does. Afterwards every batch that was
 * acknowledged is in the log at the seqs its receipt named, no batch is in it twice,
 * the seqs have no hole, and the machine loads as its log replayed.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

type Client = SupabaseClient<Database>;
const EDITORS = 4;

let crash: Awaited<ReturnType<typeof crashBackend>>;
let backend: Backend;

beforeAll(async () => {
  crash = await crashBackend('ops-crash');
  backend = crash.backend;
});

afterAll(async () => {
  await crash?.cleanup();
});

async function signedUp(tag: string): Promise<{ client: Client; id: string }> {
  const client = createClient<Database>(backend.url, backend.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
  const { data, error } = await client.auth.signUp({
    email: `${tag}-${randomUUID().slice(0, 8)}@example.test`,
    password: 'correct-horse-battery',
  });
  if (error || !data.user) throw error ?? new Error('no user');
  return { client, id: data.user.id };
}

describe('the op log when PostgreSQL is killed mid-storm', () => {
  it('keeps every acknowledged batch exactly once, at the seqs its receipt named', async () => {
    const owner = await signedUp('crash-owner');
    const project = await owner.client.from('projects').insert({ name: 'crash' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const ownerPort = createMachinesAdapter(owner.client);
    const created = await ownerPort.createMachine({
      projectId: project.data.id,
      name: 'crash',
      definition: emptyDefinition('crash'),
    });
    if (!created.ok) throw new Error(created.error.message);
    const machineId = created.value.id;
    const root = emptyDefinition('crash').root;
    const editors = await Promise.all(Array.from({ length: EDITORS }, (_, i) => signedUp(`crash-editor-${i}`)));
    const added = await owner.client.from('project_members').insert(
      editors.map((e) => ({
        project_id: project.data.id,
        user_id: e.id,
        role: 'editor' as const,
        joined_via: 'added' as const,
      })),
    );
    if (added.error) throw new Error(added.error.message);

    const acknowledged = new Map<string, { receipt: CommitReceipt; ops: Op[] }>();
    let failures = 0;
    let running = true;
    const edit = async (who: number): Promise<void> => {
      const port = createMachinesAdapter(editors[who]!.client);
      for (let n = 0; running; n++) {
        const batchId = randomUUID();
        const ops: Op[] = [
          {
            type: 'state.add',
            id: `s_${who}_${n}`,
            parent: root,
            key: `e${who}n${n}`,
            stateType: 'atomic',
            index: null,
          },
        ];
        // The same batch, under the same id, until the server answers it.
        for (;;) {
          const result = await port.commitOps({ machineId, clientId: `editor-${who}`, batchId, ops });
          if (result.ok) {
            acknowledged.set(batchId, { receipt: result.receipt, ops });
            break;
          }
          failures++;
          if (!running) return;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const storm = Array.from({ length: EDITORS }, (_, i) => edit(i));
    await until(() => acknowledged.size >= 40, 60_000, 'appends before the kill');

    await crash.killPostgres();
    await crash.healthBecomes(503);
    await crash.healthBecomes(200);
    const afterRestart = acknowledged.size;
    await until(() => acknowledged.size >= afterRestart + 40, 60_000, 'appends after the restart');
    running = false;
    await Promise.all(storm);

    // The storm did meet the crash: some appends failed while PostgreSQL was down.
    expect(failures).toBeGreaterThan(0);
    expect(crash.logs.some((l) => l.includes('PostgreSQL exited unexpectedly'))).toBe(true);

    const log = await ownerPort.opsSince(machineId, 0);
    if (!log.ok) throw new Error(log.error.message);
    const seqs = log.value.map((op) => op.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const batches = new Map<string, number[]>();
    for (const op of log.value) batches.set(op.batchId, [...(batches.get(op.batchId) ?? []), op.seq]);
    const missing = [...acknowledged].filter(([batchId, { receipt }]) => {
      const at = batches.get(batchId);
      return at === undefined || at[0] !== receipt.firstSeq || at[at.length - 1] !== receipt.lastSeq;
    });
    expect(missing).toEqual([]);
    // Each batch once: as many ops in the log as the batches in it carried.
    expect(log.value.length).toBe([...batches.keys()].length);
    for (const op of log.value) {
      const mine = acknowledged.get(op.batchId);
      if (mine) expect(op.op).toEqual(mine.ops[0]);
    }

    // The machine loads as its log replayed, every acknowledged state in it.
    const loaded = await ownerPort.loadMachine(machineId);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const shown = receive(
      chartroomModel,
      createDoc<MachineDefinition, Op>(loaded.value.definition, loaded.value.version),
      loaded.value.tail,
    ).state.confirmed;
    const keys = new Set(Object.values(shown.states).map((s) => s.key));
    const lost = [...acknowledged.values()].flatMap(({ ops }) =>
      ops.flatMap((op) => (op.type === 'state.add' && !keys.has(op.key) ? [op.key] : [])),
    );
    expect(lost).toEqual([]);
    await Promise.all([owner, ...editors].map((p) => p.client.removeAllChannels()));
  });
});

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { committed, conflicted, createDoc, edit, hasUnsent, receive, takeBatch } from '../../src/lib/collab/doc.ts';
import { applyEach } from '../../src/lib/collab/rebase.ts';
import type { DocState } from '../../src/lib/collab/types.ts';
import { counterIds, type MachineDefinition, type Op } from '../../src/lib/model/index.ts';
import type { DocumentPort } from '../../src/lib/ports/document.ts';
import { baseDefinition, intent, toOp } from '../lib/model/arbitraries.ts';
import { projectFor, team, type Team } from './machines-fixtures.ts';
import { deviceFor } from './machines-live.ts';

/**
 * The collab core against the real commit_machine_ops: three clients (two people, one
 * of them on two devices) draw random statechart edits, then all commit at once, each
 * rebasing on conflict, until every edit is committed or reported dropped. Everyone
 * converges on the server's snapshot, which is the fold of the log.
 */

interface SimClient {
  id: string;
  port: DocumentPort;
  doc: DocState<MachineDefinition, Op>;
  accepted: number;
  dropped: number;
}

let t: Team;
beforeAll(async () => {
  t = await team();
});

async function catchUp(c: SimClient, machineId: string) {
  const log = await c.port.opsSince(machineId, c.doc.version);
  if (!log.ok) throw new Error(log.error.message);
  const got = receive(chartroomModel, c.doc, log.value);
  c.doc = got.state;
  c.dropped += got.dropped.length;
}

/** Sends until nothing is unsent: commit, or on conflict fetch the log, rebase and try again. */
async function flushAll(c: SimClient, machineId: string) {
  for (let attempt = 0; hasUnsent(c.doc); attempt++) {
    if (attempt > 200) throw new Error(`${c.id} could not commit`);
    const taken = takeBatch(chartroomModel, c.doc, () => randomUUID());
    if (!taken) break;
    c.doc = taken.state;
    const { batch } = taken;
    const result = await c.port.commitOps({ machineId, base: batch.base, clientId: c.id, batchId: batch.batchId, ops: batch.ops, definition: batch.doc });
    if (result.ok) {
      const done = committed(chartroomModel, c.doc, batch.batchId, result.receipt);
      c.doc = done.state;
      if (done.gap) await catchUp(c, machineId);
    } else if (result.error.code === 'conflict') {
      c.doc = conflicted(c.doc, batch.batchId);
      await catchUp(c, machineId);
    } else {
      throw new Error(result.error.message);
    }
  }
}

describe('collab through the real database function', () => {
  it('three clients editing at once converge on one definition', async () => {
    const project = await projectFor(t);
    const initial = baseDefinition();
    const created = await (await deviceFor(t.owner)).port.createMachine({ projectId: project, name: 'shared', definition: initial });
    if (!created.ok) throw new Error(created.error.message);
    const machineId = created.value.id;

    const devices = await Promise.all([deviceFor(t.owner), deviceFor(t.editor), deviceFor(t.editor)]);
    const clients: SimClient[] = devices.map((d, i) => ({ id: `client-${i}`, port: d.port, doc: createDoc(initial, 0), accepted: 0, dropped: 0 }));
    const intents = fc.sample(intent, { numRuns: 90, seed: 42 });

    for (let round = 0; round < 3; round++) {
      clients.forEach((c, ci) => {
        const fresh = counterIds(`r${round}c${ci}`);
        for (const i of intents.slice((round * 3 + ci) * 10, (round * 3 + ci + 1) * 10)) {
          const op = toOp(c.doc.local, i, fresh);
          if (!op) continue;
          const result = edit(chartroomModel, c.doc, [op]);
          if (result.ok) {
            c.doc = result.state;
            c.accepted += 1;
          }
        }
      });
      await Promise.all(clients.map((c) => flushAll(c, machineId)));
    }
    await Promise.all(clients.map((c) => catchUp(c, machineId)));

    const server = await clients[0]!.port.loadMachine(machineId);
    if (!server.ok) throw new Error(server.error.message);
    const log = await clients[0]!.port.opsSince(machineId, 0);
    if (!log.ok) throw new Error(log.error.message);
    expect(log.value.map((e) => e.seq)).toEqual(log.value.map((_, i) => i + 1));
    const folded = applyEach(chartroomModel, initial, log.value.map((e) => e.op));
    expect(folded.dropped).toEqual([]);
    expect(folded.doc).toEqual(server.value.definition);
    for (const c of clients) {
      expect(c.doc.version).toBe(server.value.version);
      expect(c.doc.local).toEqual(server.value.definition);
      expect(log.value.filter((e) => e.clientId === c.id).length + c.dropped).toBe(c.accepted);
    }
    expect(clients.reduce((n, c) => n + c.accepted, 0)).toBeGreaterThan(20);
  });
});

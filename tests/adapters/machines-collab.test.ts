import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { committed, createDoc, edit, hasUnsent, receive, takeBatch } from '../../src/lib/collab/doc.ts';
import { replayResolved } from '../../src/lib/model/resolve.ts';
import type { DocState } from '../../src/lib/collab/types.ts';
import { counterIds, type MachineDefinition, type Op } from '../../src/lib/model/index.ts';
import type { DocumentPort } from '../../src/lib/ports/document.ts';
import { baseDefinition, intent, toOp } from '../lib/model/arbitraries.ts';
import { projectFor, team, type Team } from './machines-fixtures.ts';
import { deviceFor } from './machines-live.ts';

/**
 * The collab core against the real commit_machine_ops and checkpoint function: many
 * clients draw random statechart edits and all append at once. Nothing is refused for
 * being behind; everyone converges on the log replayed, which is also what the trusted
 * checkpoint stores.
 */

interface SimClient {
  id: string;
  port: DocumentPort;
  doc: DocState<MachineDefinition, Op>;
  accepted: number;
  dropped: number;
  refused: string[];
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

/** Appends until nothing is unsent; any refusal is recorded (the test expects none). */
async function flushAll(c: SimClient, machineId: string) {
  while (hasUnsent(c.doc)) {
    const taken = takeBatch(c.doc, () => randomUUID());
    if (!taken) {
      await catchUp(c, machineId);
      continue;
    }
    c.doc = taken.state;
    const result = await c.port.commitOps({
      machineId,
      clientId: c.id,
      batchId: taken.batch.batchId,
      ops: taken.batch.ops,
    });
    if (!result.ok) {
      c.refused.push(result.error.message);
      return;
    }
    const done = committed(chartroomModel, c.doc, taken.batch.batchId, result.receipt);
    c.doc = done.state;
    c.dropped += done.dropped.length;
    if (done.gap) await catchUp(c, machineId);
  }
}

async function run(clientCount: number, rounds: number, editsPerRound: number) {
  const project = await projectFor(t);
  const creator = await deviceFor(t.owner);
  const created = await creator.port.createMachine({
    projectId: project,
    name: 'shared',
    definition: baseDefinition(),
  });
  if (!created.ok) throw new Error(created.error.message);
  const machineId = created.value.id;
  const opened = await creator.port.loadMachine(machineId);
  if (!opened.ok) throw new Error(opened.error.message);
  const start = receive(
    chartroomModel,
    createDoc<MachineDefinition, Op>(opened.value.definition, opened.value.version),
    opened.value.tail,
  ).state;

  const devices = await Promise.all(
    Array.from({ length: clientCount }, (_, i) => deviceFor(i % 2 === 0 ? t.owner : t.editor)),
  );
  const clients: SimClient[] = devices.map((d, i) => ({
    id: `client-${i}`,
    port: d.port,
    doc: start,
    accepted: 0,
    dropped: 0,
    refused: [],
  }));
  const intents = fc.sample(intent, { numRuns: clientCount * rounds * editsPerRound, seed: 42 });
  for (let round = 0; round < rounds; round++) {
    clients.forEach((c, ci) => {
      const fresh = counterIds(`r${round}c${ci}`);
      const from = (round * clientCount + ci) * editsPerRound;
      for (const i of intents.slice(from, from + editsPerRound)) {
        const op = toOp(c.doc.local, i, fresh);
        if (!op) continue;
        const result = edit(chartroomModel, c.doc, [op]);
        if (result.ok) {
          c.doc = result.state;
          c.accepted += 1;
        }
      }
    });
    // Everyone at once.
    await Promise.all(clients.map((c) => flushAll(c, machineId)));
  }
  await Promise.all(clients.map((c) => catchUp(c, machineId)));
  return { machineId, clients, creator, start: opened.value };
}

/** Runs `clientCount` editors at once and checks: nothing refused, the log gap-free, every client = checkpoint + log replayed. */
async function raceConverges(clientCount: number, rounds: number, editsPerRound: number, minAccepted: number) {
  const { machineId, clients, creator, start } = await run(clientCount, rounds, editsPerRound);
  for (const c of clients) expect(c.refused).toEqual([]);
  const log = await creator.port.opsSince(machineId, 0);
  if (!log.ok) throw new Error(log.error.message);
  expect(log.value.map((e) => e.seq)).toEqual(log.value.map((_, i) => i + 1));
  // Every batch is stored once: each client's ops are exactly what it accepted, or reported dropped.
  const replay = replayResolved(
    start.definition,
    log.value.filter((e) => e.seq > start.version).map((e) => e.op),
  );
  for (const c of clients) {
    expect(c.doc.version).toBe(log.value.length);
    expect(c.doc.confirmed).toEqual(replay);
    expect(c.doc.local).toEqual(replay);
    const logged = log.value.filter((e) => e.clientId === c.id).length;
    expect(logged).toBe(c.accepted);
  }
  expect(clients.reduce((n, c) => n + c.accepted, 0)).toBeGreaterThan(minAccepted);

  // The trusted checkpoint equals the replay.
  const asked = await creator.client.functions.invoke('checkpoint-machine', { body: { machineId } });
  expect(asked.error).toBeNull();
  const loaded = await creator.port.loadMachine(machineId);
  if (!loaded.ok) throw new Error(loaded.error.message);
  expect(loaded.value).toMatchObject({ version: log.value.length, tail: [] });
  expect(loaded.value.definition).toEqual(replay);
}

describe('collab through the real database function', () => {
  it('20 editors appending at once: nothing refused for being behind, everyone converges on checkpoint + log replayed', async () => {
    await raceConverges(20, 2, 4, 60);
  });

  it('5 editors racing over several rounds: every client and the checkpoint equal the log replayed', async () => {
    await raceConverges(5, 4, 5, 30);
  });
});

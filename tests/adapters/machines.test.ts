import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, waitFor, type Actor } from 'xstate';
import { documentMachine } from '../../machines/open-machine/document.machine.ts';
import { createQueueStore } from '../../src/adapters/queue-store.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { createDoc, receive } from '../../src/lib/collab/doc.ts';
import type { OpModel } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { rename, renameModel } from '../machines/document.fakes.ts';
import { emptyDefinition, machineIn, projectFor, team, type Team } from './machines-fixtures.ts';
import { deviceFor, documentActors, memoryStorage, type Device } from './machines-live.ts';

/**
 * The machines adapter and the document machine against the real embedded backend,
 * through supabase-js: the port's calls, and two people editing one machine at once
 * ("A and B edit the same machine at once and both edits survive"; "an edit
 * made while offline is committed after reconnecting").
 */

let t: Team;
let project: string;
const devices: Device[] = [];
const actors: Actor<typeof documentMachine>[] = [];

beforeAll(async () => {
  t = await team();
  project = await projectFor(t);
});

afterAll(async () => {
  for (const a of actors) a.stop();
  await Promise.all(devices.map((d) => d.client.removeAllChannels()));
});

async function device(person: Team[keyof Team]) {
  const d = await deviceFor(person);
  devices.push(d);
  return d;
}

function open(d: Device, machineId: string, storage = memoryStorage()) {
  const actor = createActor(documentMachine.provide({ actors: documentActors(d.port, createQueueStore(storage)) }), {
    input: { machineId, clientId: randomUUID(), model: renameModel, newBatchId: () => randomUUID() },
  }).start();
  actors.push(actor);
  return actor;
}

const synced = (actor: Actor<typeof documentMachine>, version: number) =>
  waitFor(actor, (s) => s.hasTag('synced') && s.context.doc?.version === version, { timeout: 8_000 });

/** What a loader sees: the checkpoint plus the tail, replayed. */
async function stored(
  d: Device,
  machineId: string,
  model: OpModel<MachineDefinition, Op> = renameModel,
): Promise<{ definition: MachineDefinition; version: number }> {
  const loaded = await d.port.loadMachine(machineId);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const doc = receive(
    model,
    createDoc<MachineDefinition, Op>(loaded.value.definition, loaded.value.version),
    loaded.value.tail,
  ).state;
  return { definition: doc.confirmed, version: doc.version };
}

describe('machines adapter', () => {
  it('lists, creates, renames and deletes machines; viewers are refused in words', async () => {
    const editor = await device(t.editor);
    const viewer = await device(t.viewer);
    const created = await editor.port.createMachine({
      projectId: project,
      name: 'turnstile',
      definition: emptyDefinition('turnstile'),
    });
    if (!created.ok) throw new Error(created.error.message);
    expect(created.value).toMatchObject({
      name: 'turnstile',
      version: 0,
      projectId: project,
      definition: emptyDefinition('turnstile'),
    });
    // The content went into the log as its first op: a loader replays the bare root's checkpoint plus that tail.
    expect(await stored(editor, created.value.id, chartroomModel)).toEqual({
      definition: emptyDefinition('turnstile'),
      version: 1,
    });
    expect(await editor.port.opsSince(created.value.id, 0)).toMatchObject({
      ok: true,
      value: [{ seq: 1, op: { type: 'machine.replace' } }],
    });
    const listed = await viewer.port.listMachines(project);
    expect(listed.ok && listed.value.map((m) => m.id)).toContain(created.value.id);
    expect(await viewer.port.renameMachine(created.value.id, 'x')).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(
      await viewer.port.createMachine({ projectId: project, name: 'x', definition: emptyDefinition() }),
    ).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await editor.port.renameMachine(created.value.id, 'gate')).toMatchObject({
      ok: true,
      value: { name: 'gate' },
    });
    expect(await editor.port.deleteMachine(created.value.id)).toEqual({ ok: true, value: undefined });
    expect(await editor.port.loadMachine(created.value.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('appends ops only, never refused for being behind, and reads the log back', async () => {
    const machine = await machineIn(t, project);
    const editor = await device(t.editor);
    const owner = await device(t.owner);
    const first = await editor.port.commitOps({
      machineId: machine,
      clientId: 'c',
      batchId: randomUUID(),
      ops: [rename('a')],
    });
    // One op past the checkpoint: no checkpoint due yet (they come every 100 ops).
    expect(first).toEqual({
      ok: true,
      receipt: { firstSeq: 1, lastSeq: 1, version: 1, duplicate: false, checkpointDue: false },
    });
    // The owner has seen nothing: still appended, at the head.
    const behind = await owner.port.commitOps({
      machineId: machine,
      clientId: 'o',
      batchId: randomUUID(),
      ops: [rename('b')],
    });
    expect(behind).toMatchObject({ ok: true, receipt: { firstSeq: 2, lastSeq: 2 } });
    const log = await editor.port.opsSince(machine, 0);
    expect(log).toMatchObject({
      ok: true,
      value: [
        { seq: 1, clientId: 'c', op: rename('a') },
        { seq: 2, clientId: 'o', op: rename('b') },
      ],
    });
    // Loading is the checkpoint (still the bare root) and the tail after it, replayed.
    const loaded = await editor.port.loadMachine(machine);
    expect(loaded).toMatchObject({ ok: true, value: { version: 0, tail: [{ seq: 1 }, { seq: 2 }] } });
    expect(await stored(editor, machine)).toMatchObject({ version: 2, definition: { name: 'b' } });
  });

  it('says who last changed each machine and when, from its log; outsiders learn nothing', async () => {
    const machine = await machineIn(t, project, 'activity');
    const editor = await device(t.editor);
    const viewer = await device(t.viewer);
    const before = await viewer.port.listMachines(project);
    const created = before.ok ? before.value.find((m) => m.id === machine) : undefined;
    // Created bare: nothing in its log yet.
    expect(created?.lastChange).toBeNull();
    const committed = await editor.port.commitOps({
      machineId: machine,
      clientId: 'e',
      batchId: randomUUID(),
      ops: [rename('changed')],
    });
    expect(committed.ok).toBe(true);
    const after = await viewer.port.listMachines(project);
    const changed = after.ok ? after.value.find((m) => m.id === machine) : undefined;
    expect(changed?.lastChange?.by).toBe(t.editor.id);
    expect(Date.parse(changed?.lastChange?.at ?? '')).toBeGreaterThan(0);
    // The function behind it, called by someone outside the project: missing, as hosted PostgREST reports P0002.
    const outside = await t.outsider.client.rpc('machine_activity', { p_project: project });
    expect(outside.data).toBeNull();
    expect(outside.error).toMatchObject({ code: 'P0002' });
    const bad = await t.outsider.client.rpc('machine_activity', { p_project: null as unknown as string });
    expect(bad.error).toMatchObject({ code: '22023' });
  });

  it('the append that puts the log 100 ops past the checkpoint is answered at once, then the checkpoint moves', async () => {
    const machine = await machineIn(t, project);
    const editor = await device(t.editor);
    const ops = (n: number, tag: string) => Array.from({ length: n }, (_, i) => rename(`${tag}${i}`));
    const first = await editor.port.commitOps({
      machineId: machine,
      clientId: 'c',
      batchId: randomUUID(),
      ops: ops(60, 'a'),
    });
    expect(first).toMatchObject({ ok: true, receipt: { lastSeq: 60, checkpointDue: false } });
    const due = await editor.port.commitOps({
      machineId: machine,
      clientId: 'c',
      batchId: randomUUID(),
      ops: ops(40, 'b'),
    });
    expect(due).toMatchObject({ ok: true, receipt: { lastSeq: 100, checkpointDue: true } });
    // The adapter asked the checkpoint function without waiting for it; the stored row follows.
    await vi.waitFor(
      async () => {
        const row = await editor.client.from('machines').select('version, definition').eq('id', machine).single();
        expect(row.data).toMatchObject({ version: 100, definition: { name: 'b39' } });
      },
      { timeout: 10_000, interval: 50 },
    );
    const loaded = await editor.port.loadMachine(machine);
    expect(loaded).toMatchObject({ ok: true, value: { version: 100, tail: [] } });
  });

  it('a malformed op is refused whole in words that name it; nothing is stored', async () => {
    const machine = await machineIn(t, project);
    const editor = await device(t.editor);
    const bad = await editor.port.commitOps({
      machineId: machine,
      clientId: 'c',
      batchId: randomUUID(),
      ops: [rename('a'), { type: 'state.delete' } as never],
    });
    expect(bad).toEqual({
      ok: false,
      error: { code: 'invalid', message: 'Couldn\'t save your edit: op 1 (state.delete) needs "id" as string.' },
    });
    expect(await editor.port.opsSince(machine, 0)).toEqual({ ok: true, value: [] });
  });

  it('the checkpoint function replays the log with the model and is the only writer of the definition', async () => {
    const machine = await machineIn(t, project);
    const editor = await device(t.editor);
    await editor.port.commitOps({
      machineId: machine,
      clientId: 'c',
      batchId: randomUUID(),
      ops: [
        rename('one'),
        { type: 'state.add', id: 's_a', parent: 's_root', key: 'a', stateType: 'atomic', index: null },
      ],
    });
    await editor.port.commitOps({
      machineId: machine,
      clientId: 'd',
      batchId: randomUUID(),
      ops: [{ type: 'state.add', id: 's_b', parent: 's_root', key: 'a', stateType: 'atomic', index: null }],
    });
    // Two ops past the checkpoint: asking moves it to the head (anyone who may read may ask).
    const asked = await editor.client.functions.invoke('checkpoint-machine', { body: { machineId: machine } });
    expect(asked.error).toBeNull();
    expect(asked.data).toEqual({ version: 3, head: 3 });
    const loaded = await editor.port.loadMachine(machine);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.version).toBe(3);
    expect(loaded.value.tail).toEqual([]);
    // The collision was mended the same way every client mends it.
    expect(loaded.value.definition.name).toBe('one');
    expect(loaded.value.definition.states.s_root?.children.map((c) => loaded.value.definition.states[c]?.key)).toEqual([
      'a',
      'a-2',
    ]);
    const outsider = await device(t.outsider);
    const refused = await outsider.client.functions.invoke('checkpoint-machine', { body: { machineId: machine } });
    expect(refused.error).not.toBeNull();
  });

  it("a viewer's commit is refused as forbidden; a dead network is reported as network", async () => {
    const machine = await machineIn(t, project);
    const viewer = await device(t.viewer);
    const refused = await viewer.port.commitOps({
      machineId: machine,
      clientId: 'v',
      batchId: randomUUID(),
      ops: [rename('v')],
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    viewer.goOffline();
    expect(await viewer.port.opsSince(machine, 0)).toMatchObject({ ok: false, error: { code: 'network' } });
    expect(
      await viewer.port.commitOps({ machineId: machine, clientId: 'v', batchId: randomUUID(), ops: [rename('v')] }),
    ).toMatchObject({
      ok: false,
      error: { code: 'network' },
    });
    viewer.goOnline();
  });

  it("streams the log's inserts for one machine only, to members only", async () => {
    const machine = await machineIn(t, project);
    const other = await machineIn(t, project);
    const viewer = await device(t.viewer);
    const outsider = await device(t.outsider);
    const editor = await device(t.editor);
    // Resolves with how joining ended: a reader is subscribed, an outsider refused at join.
    const listen = (d: Device, into: unknown[]) =>
      new Promise<string>((resolve) => {
        const sub = d.port.opEvents$(machine).subscribe((event) => {
          if (event.type === 'ops.subscribed' || event.type === 'connection.lost') resolve(event.type);
          if (event.type === 'ops.received') into.push(...event.ops.map((o) => o.op));
        });
        afterAll(() => sub.unsubscribe());
      });
    const seen: unknown[] = [];
    const seenByOutsider: unknown[] = [];
    expect(await Promise.all([listen(viewer, seen), listen(outsider, seenByOutsider)])).toEqual([
      'ops.subscribed',
      'connection.lost',
    ]);
    await editor.port.commitOps({ machineId: other, clientId: 'c', batchId: randomUUID(), ops: [rename('elsewhere')] });
    await editor.port.commitOps({ machineId: machine, clientId: 'c', batchId: randomUUID(), ops: [rename('here')] });
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual([rename('here')]);
    // Delivered in commit order: had the outsider been sent the op, it would be here by now.
    await editor.port.commitOps({ machineId: machine, clientId: 'c', batchId: randomUUID(), ops: [rename('again')] });
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual([rename('here'), rename('again')]);
    expect(seenByOutsider).toEqual([]);
  });
});

describe('two people editing one machine', () => {
  it('both edits survive when A and B edit at the same moment', async () => {
    const machine = await machineIn(t, project);
    const a = open(await device(t.owner), machine);
    const b = open(await device(t.editor), machine);
    await Promise.all([synced(a, 0), synced(b, 0)]);
    a.send({ type: 'doc.edit', ops: [rename('renamed by A')] });
    b.send({
      type: 'doc.edit',
      ops: [{ type: 'state.update', id: 's_root', changes: { description: 'renamed-by-B' } }],
    });
    await Promise.all([synced(a, 2), synced(b, 2)]);
    const server = await stored(devices[0]!, machine);
    expect(server.version).toBe(2);
    expect(server.definition.name).toBe('renamed by A');
    expect(server.definition.states.s_root?.description).toBe('renamed-by-B');
    expect(a.getSnapshot().context.doc?.local).toEqual(server.definition);
    expect(b.getSnapshot().context.doc?.local).toEqual(server.definition);
  });

  it("many quick edits from both sides converge on the server's definition", async () => {
    const machine = await machineIn(t, project);
    const a = open(await device(t.owner), machine);
    const b = open(await device(t.editor), machine);
    await Promise.all([synced(a, 0), synced(b, 0)]);
    for (let i = 0; i < 10; i++) {
      a.send({ type: 'doc.edit', ops: [rename(`A${i}`)] });
      b.send({ type: 'doc.edit', ops: [{ type: 'state.update', id: 's_root', changes: { description: `B${i}` } }] });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all([synced(a, 20), synced(b, 20)]);
    const server = await stored(devices[devices.length - 1]!, machine);
    expect(server.definition).toMatchObject({ name: 'A9', states: { s_root: { description: 'B9' } } });
    expect(a.getSnapshot().context.doc?.local).toEqual(server.definition);
    expect(b.getSnapshot().context.doc?.local).toEqual(server.definition);
  });

  it('an edit made offline is kept in storage and committed after reconnecting; the other person sees it', async () => {
    const machine = await machineIn(t, project);
    const deviceA = await device(t.owner);
    const storage = memoryStorage();
    const a = open(deviceA, machine, storage);
    const b = open(await device(t.editor), machine);
    await Promise.all([synced(a, 0), synced(b, 0)]);

    deviceA.goOffline();
    await waitFor(a, (s) => s.hasTag('offline'), { timeout: 5_000 });
    a.send({ type: 'doc.edit', ops: [rename('typed offline')] });
    // The copy is written after the task that made the edit (writes are coalesced).
    await vi.waitFor(() => expect([...storage.items.values()].join()).toContain('typed offline'));
    // Meanwhile B edits online.
    b.send({ type: 'doc.edit', ops: [{ type: 'state.update', id: 's_root', changes: { description: 'b-online' } }] });
    await synced(b, 1);

    // A reload while still offline: the queue comes back from storage.
    a.stop();
    const reloaded = open(deviceA, machine, storage);
    await waitFor(reloaded, (s) => s.hasTag('ready'), { timeout: 5_000 });
    expect(reloaded.getSnapshot().context.doc?.local.name).toBe('typed offline');

    deviceA.goOnline();
    await synced(reloaded, 2);
    await synced(b, 2);
    await vi.waitFor(() => expect(storage.items.size).toBe(0));
    const server = await stored(deviceA, machine);
    expect(server.definition).toMatchObject({ name: 'typed offline', states: { s_root: { description: 'b-online' } } });
    expect(b.getSnapshot().context.doc?.local).toEqual(server.definition);
  });
});

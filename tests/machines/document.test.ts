import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { documentMachine } from '../../machines/open-machine/document.machine.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { receive } from '../../src/lib/collab/doc.ts';
import { fakeDocumentBackend, flush, MACHINE_ID, rename, renameModel } from './document.fakes.ts';

/** The document statechart with fake actors and fake timers: arrange, act, assert. */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

let batch = 0;
const input = () => ({ machineId: MACHINE_ID, clientId: 'me', model: renameModel, newBatchId: () => `b${++batch}` });

/** A document opened from the server and caught up: online and idle. */
async function opened(backend = fakeDocumentBackend(), model = renameModel) {
  const actor = createActor(documentMachine.provide({ actors: backend.actors }), {
    input: { ...input(), model },
  }).start();
  await backend.serve('loadQueue');
  await backend.serve('loadMachine');
  await backend.serve('fetchOps');
  expect(actor.getSnapshot().value).toEqual({ ready: { online: { idle: 'saved' } } });
  return { actor, backend };
}

const local = (actor: ReturnType<typeof createActor<typeof documentMachine>>) => actor.getSnapshot().context.doc?.local;

describe('document machine', () => {
  it('opens from the server when nothing is stored, then catches up from the log', async () => {
    const backend = fakeDocumentBackend();
    backend.commitFromElsewhere([rename('from-elsewhere')]);
    const actor = createActor(documentMachine.provide({ actors: backend.actors }), { input: input() }).start();
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    await backend.serve('loadQueue');
    await backend.serve('loadMachine');
    await backend.serve('fetchOps');
    expect(actor.getSnapshot().hasTag('synced')).toBe(true);
    expect(local(actor)?.name).toBe('from-elsewhere');
  });

  it('applies an edit at once and commits it at once; edits made meanwhile leave together as the next batch', async () => {
    const { actor, backend } = await opened();
    actor.send({ type: 'doc.edit', ops: [rename('a')] });
    // No timer in between: the request is on its way in the same turn.
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'committing' } });
    actor.send({ type: 'doc.edit', ops: [rename('b')] });
    actor.send({ type: 'doc.edit', ops: [rename('c')] });
    expect(local(actor)?.name).toBe('c');
    expect(actor.getSnapshot().hasTag('saving')).toBe(true);
    expect(backend.stored.get(MACHINE_ID)?.pending).toHaveLength(2);
    await backend.serve('commitOps');
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'committing' } });
    await backend.serve('commitOps');
    expect(backend.calls.filter((c) => c.name === 'commitOps')).toHaveLength(2);
    expect(backend.server().log.map((e) => e.op)).toEqual([rename('a'), rename('b'), rename('c')]);
    expect(actor.getSnapshot().value).toEqual({ ready: { online: { idle: 'saved' } } });
    expect(actor.getSnapshot().context.doc?.version).toBe(3);
    expect(backend.stored.get(MACHINE_ID)).toBeNull();
  });

  it('refuses an edit that does not apply and says why, queueing nothing', async () => {
    const { actor } = await opened();
    actor.send({ type: 'doc.edit', ops: [{ type: 'state.rename', id: 's_missing', key: 'x' }] });
    expect(actor.getSnapshot().context.error).toMatch(/no state s_missing/);
    expect(actor.getSnapshot().context.doc?.pending).toEqual([]);
  });

  it("an append behind someone else's is never refused: the log before it is read and the queue rebased", async () => {
    const { actor, backend } = await opened();
    actor.send({ type: 'doc.edit', ops: [{ type: 'state.rename', id: 's_root', key: 'mine' }] });
    backend.commitFromElsewhere([rename('theirs')]);
    await backend.serve('commitOps');
    // Acknowledged at seq 2; seq 1 has not reached us: read the log, never resend.
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'resyncing' } });
    expect(actor.getSnapshot().hasTag('synced')).toBe(false);
    await backend.serve('fetchOps');
    expect(actor.getSnapshot().value).toEqual({ ready: { online: { idle: 'saved' } } });
    expect(backend.calls.filter((c) => c.name === 'commitOps')).toHaveLength(1);
    const server = backend.server();
    expect(server.version).toBe(2);
    expect(local(actor)).toEqual(server.doc);
    expect(server.doc.name).toBe('theirs');
    expect(server.doc.states.s_root?.key).toBe('mine');
  });

  it("drops its own echo by batch id and applies others' ops from the stream", async () => {
    const { actor, backend } = await opened();
    actor.send({ type: 'doc.edit', ops: [rename('mine')] });
    await vi.advanceTimersByTimeAsync(20);
    await backend.serve('commitOps');
    backend.emit({ type: 'ops.received', ops: backend.server().log });
    expect(actor.getSnapshot().context.doc?.version).toBe(1);
    backend.emit({ type: 'ops.received', ops: backend.commitFromElsewhere([rename('theirs')]) });
    await flush();
    expect(local(actor)?.name).toBe('theirs');
    expect(actor.getSnapshot().context.doc?.version).toBe(2);
  });

  it("shows another editor's batch the moment it is sent, confirms it from the log, and ignores a late copy", async () => {
    const { actor, backend } = await opened();
    const batch = { batchId: 'their-1', clientId: 'them', userId: 'u-them', ops: [rename('seen early')] };
    backend.emit({ type: 'ops.seen', batch });
    await flush();
    expect(local(actor)?.name).toBe('seen early');
    expect(actor.getSnapshot().context.doc?.version).toBe(0);
    // The log's copy: same view, now confirmed.
    const head = backend.server().version;
    backend.emit({
      type: 'ops.received',
      ops: [{ seq: head + 1, batchId: 'their-1', clientId: 'them', op: rename('seen early') }],
    });
    await flush();
    expect(actor.getSnapshot().context.doc).toMatchObject({ version: 1, remote: [] });
    // Its time-out is then no change at all: the same snapshot, nothing for the open machine to route.
    const confirmed = actor.getSnapshot();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(actor.getSnapshot()).toBe(confirmed);
    backend.emit({ type: 'ops.seen', batch });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(local(actor)?.name).toBe('seen early');
    expect(actor.getSnapshot().context.doc?.remote).toEqual([]);
  });

  it("rolls back another editor's batch that the log never confirms, after seenTimeout", async () => {
    const { actor, backend } = await opened();
    backend.emit({
      type: 'ops.seen',
      batch: { batchId: 'lost', clientId: 'them', userId: 'u-them', ops: [rename('ghost')] },
    });
    await flush();
    expect(local(actor)?.name).toBe('ghost');
    await vi.advanceTimersByTimeAsync(9_999);
    expect(local(actor)?.name).toBe('ghost');
    await vi.advanceTimersByTimeAsync(1);
    expect(local(actor)?.name).toBe('door');
    expect(actor.getSnapshot().context.doc?.remote).toEqual([]);
  });

  it('rebases a remote delivery onto the queue once: the gap check and the apply share one rebase', async () => {
    let applies = 0;
    const counting: typeof renameModel = {
      ...renameModel,
      apply: (def, op) => {
        applies += 1;
        return renameModel.apply(def, op);
      },
    };
    const { actor, backend } = await opened(fakeDocumentBackend(undefined, counting), counting);
    actor.send({ type: 'connection.lost' });
    actor.send({ type: 'doc.edit', ops: [rename('a')] });
    actor.send({ type: 'doc.edit', ops: [rename('b')] });
    const before = actor.getSnapshot().context.doc;
    const ops = backend.commitFromElsewhere([rename('theirs')]);
    // What one rebase of this delivery costs, measured on the same document outside the machine.
    applies = 0;
    if (before) receive(counting, before, ops);
    const once = applies;
    applies = 0;
    backend.emit({ type: 'ops.received', ops });
    await flush();
    expect(once).toBeGreaterThan(0);
    expect(applies).toBe(once);
    expect(local(actor)?.name).toBe('b');
  });

  it('resyncs from the log when the stream skips a seq', async () => {
    const { actor, backend } = await opened();
    backend.commitFromElsewhere([rename('one')]);
    const second = backend.commitFromElsewhere([rename('two')]);
    backend.emit({ type: 'ops.received', ops: second });
    await flush();
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'resyncing' } });
    await backend.serve('fetchOps');
    expect(actor.getSnapshot().context.doc?.version).toBe(2);
    expect(local(actor)?.name).toBe('two');
  });

  it('keeps editing offline, stores the queue, and a reload sends it when back online', async () => {
    const { actor, backend } = await opened();
    backend.emit({ type: 'connection.lost' });
    await flush();
    expect(actor.getSnapshot().hasTag('offline')).toBe(true);
    actor.send({ type: 'doc.edit', ops: [rename('typed offline')] });
    expect(backend.stored.get(MACHINE_ID)?.pending).toEqual([rename('typed offline')]);
    actor.stop();

    // A reload: a new actor over the same store, the server reachable again.
    const reloaded = createActor(documentMachine.provide({ actors: backend.actors }), { input: input() }).start();
    await backend.serve('loadQueue');
    expect(backend.calls.filter((c) => c.name === 'loadMachine')).toHaveLength(1);
    expect(local(reloaded)?.name).toBe('typed offline');
    await backend.serve('fetchOps');
    await vi.advanceTimersByTimeAsync(20);
    await backend.serve('commitOps');
    expect(backend.server().doc.name).toBe('typed offline');
    expect(backend.stored.get(MACHINE_ID)).toBeNull();
  });

  it('a network failure while committing keeps the batch and resends it under the same id', async () => {
    const { actor, backend } = await opened();
    actor.send({ type: 'doc.edit', ops: [rename('once')] });
    await vi.advanceTimersByTimeAsync(20);
    const first = backend.calls.at(-1)?.input as { batchId: string };
    await backend.settle('commitOps', { ok: false, error: { code: 'network', message: "Can't reach the server." } });
    expect(actor.getSnapshot().hasTag('offline')).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    await backend.serve('fetchOps');
    await vi.advanceTimersByTimeAsync(20);
    const again = backend.calls.at(-1)?.input as { batchId: string };
    expect(again).toMatchObject({ batchId: first.batchId });
    await backend.serve('commitOps');
    expect(backend.server().log).toHaveLength(1);
  });

  it('undo and redo apply the inverse of its own edit as new, shared edits', async () => {
    const { actor, backend } = await opened();
    expect(actor.getSnapshot().can({ type: 'doc.undo' })).toBe(false);
    actor.send({ type: 'doc.edit', ops: [rename('renamed')] });
    actor.send({ type: 'doc.undo' });
    expect(local(actor)?.name).toBe('door');
    actor.send({ type: 'doc.redo' });
    expect(local(actor)?.name).toBe('renamed');
    actor.send({ type: 'doc.undo' });
    // The first edit left at once; the three after it go as the next batch.
    await backend.serve('commitOps');
    await backend.serve('commitOps');
    expect(backend.server().log.map((e) => e.op)).toEqual([
      rename('renamed'),
      rename('door'),
      rename('renamed'),
      rename('door'),
    ]);
    expect(backend.server().doc.name).toBe('door');
  });

  it('a refused commit (no longer an editor) drops the queue and says why', async () => {
    const { actor, backend } = await opened();
    actor.send({ type: 'doc.edit', ops: [rename('nope')] });
    await vi.advanceTimersByTimeAsync(20);
    await backend.settle('commitOps', {
      ok: false,
      error: { code: 'forbidden', message: "You don't have permission to save your edit." },
    });
    expect(actor.getSnapshot().context.error).toMatch(/permission/);
    expect(local(actor)?.name).toBe('door');
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'resyncing' } });
    await backend.serve('fetchOps');
    // Not "Saved" next to "Couldn't save your edit".
    expect(actor.getSnapshot().value).toEqual({ ready: { online: { idle: 'notSaved' } } });
    expect(actor.getSnapshot().hasTag('unsaved')).toBe(true);
    expect(actor.getSnapshot().hasTag('synced')).toBe(false);
    // The next acknowledged edit clears it.
    actor.send({ type: 'doc.edit', ops: [rename('later')] });
    await backend.serve('commitOps');
    expect(actor.getSnapshot().hasTag('synced')).toBe(true);
  });

  it('a server failure while committing keeps the queue and tries again later', async () => {
    const { actor, backend } = await opened();
    actor.send({ type: 'doc.edit', ops: [rename('kept')] });
    await vi.advanceTimersByTimeAsync(20);
    await backend.settle('commitOps', { ok: false, error: { code: 'unknown', message: 'The server failed' } });
    expect(actor.getSnapshot().hasTag('offline')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('The server failed');
    expect(backend.stored.get(MACHINE_ID)?.inflight?.ops).toEqual([rename('kept')]);
    await vi.advanceTimersByTimeAsync(2_000);
    await backend.serve('fetchOps');
    await vi.advanceTimersByTimeAsync(20);
    await backend.serve('commitOps');
    expect(backend.server().doc.name).toBe('kept');
  });

  it('a failed open can be retried', async () => {
    const backend = fakeDocumentBackend();
    const actor = createActor(documentMachine.provide({ actors: backend.actors }), { input: input() }).start();
    await backend.serve('loadQueue');
    await backend.settle('loadMachine', { ok: false, error: { code: 'not_found', message: 'gone' } });
    expect(actor.getSnapshot().hasTag('failed')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('gone');
    actor.send({ type: 'doc.retry' });
    await backend.serve('loadMachine');
    expect(actor.getSnapshot().hasTag('ready')).toBe(true);
  });

  it('a quiet document checks the log now and then', async () => {
    const { actor, backend } = await opened();
    backend.commitFromElsewhere([rename('missed')]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'resyncing' } });
    await backend.serve('fetchOps');
    expect(local(actor)?.name).toBe('missed');
  });

  it('with the statechart model: adds a state, undoes it exactly, commits both', async () => {
    const backend = fakeDocumentBackend(undefined, chartroomModel);
    const actor = createActor(documentMachine.provide({ actors: backend.actors }), {
      input: { ...input(), model: chartroomModel },
    }).start();
    await backend.serve('loadQueue');
    await backend.serve('loadMachine');
    await backend.serve('fetchOps');
    const before = local(actor);
    actor.send({
      type: 'doc.edit',
      ops: [{ type: 'state.add', id: 's_new', parent: 's_root', key: 'open', stateType: 'atomic', index: null }],
    });
    expect(local(actor)?.states.s_new?.key).toBe('open');
    actor.send({ type: 'doc.undo' });
    expect(local(actor)).toEqual(before);
    await backend.serve('commitOps');
    await backend.serve('commitOps');
    expect(backend.server().log.map((e) => e.op.type)).toEqual(['state.add', 'state.delete']);
    expect(backend.server().doc).toEqual(before);
  });

  it('an edit too big to save is refused at once, saying so with the limit; nothing is queued or sent', async () => {
    const { actor, backend } = await opened();
    actor.send({
      type: 'doc.edit',
      ops: [{ type: 'state.update', id: 's_root', changes: { description: 'x'.repeat(1024 * 1024) } }],
    });
    const { error, dropped, doc } = actor.getSnapshot().context;
    expect(error).toBe(
      'This edit is too big to save: 1.0 MB, and one edit can be at most 512 KB. Nothing was changed; split it into smaller edits.',
    );
    expect(error).not.toMatch(/someone else/);
    expect(dropped).toEqual([]);
    expect(doc?.pending).toEqual([]);
    expect(backend.isOpen('commitOps')).toBe(false);
  });
});

describe('the sync tags (what the label reads)', () => {
  const SYNC = ['synced', 'saving', 'syncing', 'unsaved', 'offline'] as const;
  /** Every snapshot the actor emits under `ready` has exactly one sync tag, and `synced` only with nothing unsent and no refusal. */
  function watchTags(actor: ReturnType<typeof createActor<typeof documentMachine>>) {
    const problems: string[] = [];
    actor.subscribe((s) => {
      if (!s.hasTag('ready')) return;
      const tags = SYNC.filter((t) => s.hasTag(t));
      if (tags.length !== 1) problems.push(`${JSON.stringify(s.value)} has sync tags [${tags.join(', ')}]`);
      const unsent = (s.context.doc?.inflight ? 1 : 0) + (s.context.doc?.pending.length ?? 0);
      if (s.hasTag('synced') && (unsent > 0 || s.context.refused))
        problems.push(`${JSON.stringify(s.value)} says synced with ${unsent} unsent`);
    });
    return problems;
  }

  it('offline with an edit waiting, through the retry cycle, never reads as saved', async () => {
    const { actor, backend } = await opened();
    const problems = watchTags(actor);
    backend.emit({ type: 'connection.lost' });
    await flush();
    actor.send({ type: 'doc.edit', ops: [rename('waiting')] });
    // The retry timer takes it back online: reading the log, with the edit still unsent.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(actor.getSnapshot().value).toEqual({ ready: { online: 'resyncing' } });
    expect(actor.getSnapshot().hasTag('synced')).toBe(false);
    await backend.settle('fetchOps', { ok: false, error: { code: 'network', message: "Can't reach the server." } });
    await vi.advanceTimersByTimeAsync(2_000);
    await backend.serve('fetchOps');
    await backend.serve('commitOps');
    expect(actor.getSnapshot().hasTag('synced')).toBe(true);
    expect(problems).toEqual([]);
  });

  it('a refusal reads as not saved, never as saved', async () => {
    const { actor, backend } = await opened();
    const problems = watchTags(actor);
    actor.send({ type: 'doc.edit', ops: [rename('nope')] });
    await backend.settle('commitOps', { ok: false, error: { code: 'forbidden', message: "Couldn't save your edit." } });
    await backend.serve('fetchOps');
    expect(actor.getSnapshot().hasTag('unsaved')).toBe(true);
    expect(problems).toEqual([]);
  });
});

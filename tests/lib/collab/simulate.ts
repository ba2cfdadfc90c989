import fc from 'fast-check';
import {
  committed,
  createDoc,
  edit,
  forget,
  hasUnsent,
  receive,
  seen,
  restoreDoc,
  snapshotOf,
  takeBatch,
} from '../../../src/lib/collab/doc.ts';
import {
  checkpoint,
  opsSince,
  serverAppend,
  type ServerAnswer,
  type ServerDoc,
} from '../../../src/lib/collab/server-model.ts';
import type { DocState, DroppedOp, InflightBatch, OpModel, RemoteBatch } from '../../../src/lib/collab/types.ts';

/**
 * Several clients and one server (the SQL function's semantics, as a pure function),
 * stepped by a script of random choices: edits, sends, the server appending a request,
 * answers delivered or lost, realtime ops delivered or skipped (a gap), resyncs, reloads
 * from the stored queue and checkpoints. Each batch sent is also broadcast to the other
 * clients at once (before the server orders it); those copies arrive in any order, late,
 * twice or never, and a client may give up on one (the time-out that rolls it back).
 * `settle` then lets the network run to quiet.
 */

export type Step =
  | { kind: 'edit'; client: number; pick: number[] }
  | { kind: 'send'; client: number }
  | { kind: 'serve'; client: number }
  | { kind: 'answer'; client: number; lose: boolean }
  | { kind: 'stream'; client: number; skip: boolean }
  | { kind: 'resync'; client: number }
  | { kind: 'reload'; client: number }
  /** A copy of a peer's batch reaches this client (picked from those on the way), or is lost. */
  | { kind: 'peer'; client: number; pick: number; lose: boolean }
  /** This client gives up on one of the peers' batches it shows (never confirmed in time). */
  | { kind: 'expire'; client: number; pick: number }
  | { kind: 'checkpoint' };

interface Client<D, O> {
  id: string;
  doc: DocState<D, O>;
  /** A request on the wire: the batch as sent. */
  request: InflightBatch<O> | null;
  answer: { batchId: string; answer: ServerAnswer } | null;
  /** Index of the next log entry the realtime stream delivers to this client. */
  streamAt: number;
  /** Copies of peers' batches on their way to this client, in no particular order. */
  inbox: RemoteBatch<O>[];
}

export interface World<D, O> {
  initial: D;
  server: ServerDoc<D, O>;
  clients: Client<D, O>[];
  dropped: DroppedOp<O>[];
  /** Edits each client applied locally, by client index. */
  accepted: number[];
  /** Queued ops each client dropped on rebase, by client index. */
  droppedBy: number[];
}

export function createWorld<D, O>(initial: D, clients: number): World<D, O> {
  return {
    initial,
    server: { doc: initial, checkpointSeq: 0, log: [] },
    clients: Array.from({ length: clients }, (_, i) => ({
      id: `c${i}`,
      doc: createDoc<D, O>(initial, 0),
      request: null,
      answer: null,
      streamAt: 0,
      inbox: [],
    })),
    dropped: [],
    accepted: Array.from({ length: clients }, () => 0),
    droppedBy: Array.from({ length: clients }, () => 0),
  };
}

let batchCounter = 0;
const newBatchId = () => `batch-${++batchCounter}`;

function noteDropped<D, O>(world: World<D, O>, c: Client<D, O>, dropped: DroppedOp<O>[]): void {
  world.dropped.push(...dropped);
  const i = world.clients.indexOf(c);
  world.droppedBy[i] = (world.droppedBy[i] ?? 0) + dropped.length;
}

function resync<D, O>(model: OpModel<D, O>, world: World<D, O>, c: Client<D, O>): void {
  const got = receive(model, c.doc, opsSince(world.server, c.doc.version));
  c.doc = got.state;
  noteDropped(world, c, got.dropped);
  if (got.gap) throw new Error('a fetch of the whole tail cannot leave a gap');
}

export function step<D, O>(
  model: OpModel<D, O>,
  world: World<D, O>,
  s: Step,
  genOp: (doc: D, pick: number[]) => O,
): void {
  if (s.kind === 'checkpoint') {
    world.server = checkpoint(model, world.server);
    return;
  }
  const c = world.clients[s.client % world.clients.length];
  if (!c) return;
  switch (s.kind) {
    case 'edit': {
      const result = edit(model, c.doc, [genOp(c.doc.local, s.pick)]);
      if (result.ok) {
        c.doc = result.state;
        world.accepted[s.client % world.clients.length] = (world.accepted[s.client % world.clients.length] ?? 0) + 1;
      }
      return;
    }
    case 'send': {
      if (c.request || c.answer) return;
      const taken = takeBatch(c.doc, newBatchId);
      if (!taken) return;
      const first = c.doc.inflight?.batchId !== taken.batch.batchId;
      c.doc = taken.state;
      c.request = taken.batch;
      // Sent to the peers too, the moment it is first sent (a retry is not: it may be in the log already).
      if (first)
        for (const peer of world.clients)
          if (peer !== c)
            peer.inbox.push({ batchId: taken.batch.batchId, clientId: c.id, userId: c.id, ops: [...taken.batch.ops] });
      return;
    }
    case 'peer': {
      if (c.inbox.length === 0) return;
      const [copy] = c.inbox.splice(s.pick % c.inbox.length, 1);
      if (copy && !s.lose) c.doc = seen(model, c.doc, copy);
      return;
    }
    case 'expire': {
      const shown = c.doc.remote ?? [];
      const batch = shown[s.pick % Math.max(1, shown.length)];
      if (!batch) return;
      const gone = forget(model, c.doc, batch.batchId);
      c.doc = gone.state;
      noteDropped(world, c, gone.dropped);
      return;
    }
    case 'serve': {
      if (!c.request) return;
      const { batchId, ops } = c.request;
      const result = serverAppend(world.server, { clientId: c.id, batchId, ops });
      world.server = result.server;
      c.request = null;
      c.answer = { batchId, answer: result.answer };
      return;
    }
    case 'answer': {
      if (!c.answer) return;
      const { batchId, answer } = c.answer;
      c.answer = null;
      if (s.lose) return; // the inflight batch stays; the next send retries it under its id
      const done = committed(model, c.doc, batchId, answer.receipt);
      c.doc = done.state;
      noteDropped(world, c, done.dropped);
      if (done.gap) resync(model, world, c);
      return;
    }
    case 'stream': {
      const entry = world.server.log[c.streamAt];
      if (!entry) return;
      c.streamAt += 1;
      if (s.skip) return;
      const got = receive(model, c.doc, [entry]);
      c.doc = got.state;
      noteDropped(world, c, got.dropped);
      if (got.gap) resync(model, world, c);
      return;
    }
    case 'resync':
      resync(model, world, c);
      return;
    case 'reload': {
      // The stored queue is JSON: what survives a reload is what survives a round trip.
      if (c.request || c.answer) return;
      const saved = JSON.parse(JSON.stringify(snapshotOf(c.doc))) as ReturnType<typeof snapshotOf<D, O>>;
      const restored = restoreDoc(model, saved);
      c.doc = restored.state;
      // A reload opens a new channel: copies on their way to the old one are gone.
      c.inbox = [];
      noteDropped(world, c, restored.dropped);
      resync(model, world, c);
      return;
    }
  }
}

/** Runs the network until every client has sent everything and heard every answer. */
export function settle<D, O>(model: OpModel<D, O>, world: World<D, O>): void {
  for (let round = 0; round < 10_000; round++) {
    let busy = false;
    for (const [i, c] of world.clients.entries()) {
      if (c.answer) step(model, world, { kind: 'answer', client: i, lose: false }, () => never());
      else if (c.request) step(model, world, { kind: 'serve', client: i }, () => never());
      else if (hasUnsent(c.doc)) step(model, world, { kind: 'send', client: i }, () => never());
      else continue;
      busy = true;
    }
    if (!busy) break;
  }
  for (const c of world.clients) {
    while (c.streamAt < world.server.log.length)
      step(model, world, { kind: 'stream', client: world.clients.indexOf(c), skip: false }, () => never());
    // A lost last message leaves no later seq to reveal the gap; the document machine
    // resyncs when it has been quiet for a while, which this stands for.
    resync(model, world, c);
    // Copies still on the way arrive late: every batch is confirmed by now, so none shows.
    for (const copy of c.inbox.splice(0)) c.doc = seen(model, c.doc, copy);
  }
}

function never(): never {
  throw new Error('settle makes no edits');
}

/** True about one time in ten: losses are the exception. */
const rarely = fc.nat({ max: 9 }).map((n) => n === 0);

/** A random step for one of `clients` clients; edits and network steps dominate. */
export const stepArb = (clients: number): fc.Arbitrary<Step> => {
  const client = fc.nat({ max: clients - 1 });
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('edit' as const),
        client,
        pick: fc.array(fc.nat({ max: 1000 }), { minLength: 4, maxLength: 4 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('send' as const), client }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('serve' as const), client }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('answer' as const), client, lose: rarely }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('stream' as const), client, skip: rarely }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('resync' as const), client }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('reload' as const), client }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('peer' as const), client, pick: fc.nat({ max: 20 }), lose: rarely }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), client, pick: fc.nat({ max: 20 }) }) },
  );
};

/**
 * What every run must end with: each client's confirmed and local documents equal the
 * log replayed onto the initial document (resolving each op as every client does); the
 * server's checkpoint, moved to the head, equals that replay too; seqs are 1..n with no
 * batch twice; and every accepted edit is in the log or was reported dropped to its author.
 */
export function expectConverged<D, O>(
  model: OpModel<D, O>,
  world: World<D, O>,
  expect: (value: unknown) => {
    toEqual(v: unknown): void;
    toBe(v: unknown): void;
    toBeNull(): void;
    toBeLessThanOrEqual(v: number): void;
    toBeGreaterThanOrEqual(v: number): void;
  },
): void {
  const replayed = checkpoint(model, { doc: world.initial, checkpointSeq: 0, log: world.server.log }).doc;
  const moved = checkpoint(model, world.server);
  expect(moved.doc).toEqual(replayed);
  const head = world.server.log.length;
  expect(world.server.log.map((e) => e.seq)).toEqual(world.server.log.map((_, i) => i + 1));
  world.clients.forEach((c, i) => {
    expect(c.doc.version).toBe(head);
    expect(c.doc.inflight).toBeNull();
    expect(c.doc.pending).toEqual([]);
    expect(c.doc.confirmed).toEqual(replayed);
    expect(c.doc.local).toEqual(replayed);
    // Every peer batch shown was confirmed or given up on; a late copy never shows again.
    expect(c.doc.remote ?? []).toEqual([]);
    const logged = world.server.log.filter((e) => e.clientId === c.id).length;
    expect(logged).toBeLessThanOrEqual(world.accepted[i] ?? 0);
    expect(logged + (world.droppedBy[i] ?? 0)).toBeGreaterThanOrEqual(world.accepted[i] ?? 0);
  });
}

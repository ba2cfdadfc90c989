import { randomUUID } from 'node:crypto';
import { createMachinesAdapter } from '../src/adapters/supabase/machines.ts';
import { chartroomModel } from '../src/lib/collab/chartroom.ts';
import { committed, createDoc, edit, forget, receive, seen, takeBatch } from '../src/lib/collab/doc.ts';
import type { CommittedOp, DocState } from '../src/lib/collab/types.ts';
import type { Op } from '../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../src/lib/model/types.ts';
import type { DocumentPort } from '../src/lib/ports/document.ts';
import { summarize, type Summary } from './lib.ts';
import { person } from './sections/collab.ts';

/**
 * Many editors on one machine, each committing about once a second through the machines
 * adapter and the collab core (as the document machine does: one batch on the wire at a
 * time, edits made meanwhile leave together as the next batch), all following the
 * machine's op stream. Every tenth edit adds a state under the root with a key other
 * editors pick at the same moment (a collision to mend); the rest edit the editor's own
 * state. Delivery is timed from the sender starting its commit to each other editor
 * applying the op. The editors may be spread over several processes (shards, each running
 * runStormShard; bench/storm-process.ts forks them): every time is wall-clock ms, so the
 * figures are worked out across them (stormFigures).
 */

export interface StormFigures {
  /** Edits made (an add whose key another editor's add, already shown, took first is refused and not made). */
  edits: number;
  /** Ticks at which an editor tried an edit: `rate` x `seconds` each when the editors' process keeps up. */
  tried: number;
  appendedOps: number;
  refusedBehind: number;
  refusedOther: number;
  converged: number;
  delivery: Summary;
  roundTrip: Summary;
  dropped: number;
  /** Receipts whose first seq was past the editor's version (the log before it not yet received). */
  receiptGaps: number;
  /** Stream messages past the editor's version + 1. */
  streamGaps: number;
  /** From the sender starting its commit to the batch reaching the dedicated observer (own process); n = 0 without one. */
  observerDelivery: Summary;
  /** From the sender starting its commit to each other editor showing it, sent ahead of the log (before it is durable). */
  aheadDelivery: Summary;
  /** Batches an editor showed ahead of the log that the log never confirmed there (rolled back by the time-out). */
  rolledBack: number;
  /** From the edit being made (it may wait for the batch before it) to each other editor applying it from the stream. */
  editDelivery: Summary;
  /** From the edit being made to each other editor showing it, sent ahead of the log. */
  editAhead: Summary;
  /** Edits appended times the other editors: what `editDelivery` counts when every edit reached everyone. */
  expectedDeliveries: number;
  /** Each (appended op, other editor) the op stream never brought: an edit not delivered live. */
  notStreamed: MissingDelivery[];
  /**
   * (Appended op, other editor) that the stream brought but a log read applied: the peer's
   * own append was answered with a seq past ops still on their way to it (a receipt gap)
   * and the read returned first, so the stream's copy came as already known; or the
   * stream brought a seq past one still missing (a stream gap), applied once read.
   */
  fromLogRead: MissingDelivery[];
}

/** How one editor came to apply one appended op of another, when not from the stream. */
export interface MissingDelivery {
  seq: number;
  author: string;
  peer: string;
  /** How the peer applied it: from a log read (and what sent it there), or never. */
  applied:
    | 'log read on joining'
    | 'log read after a receipt gap'
    | 'log read after a stream gap'
    | 'log read at the end'
    | 'never';
  /** Ms from the peer applying it to the stream bringing it (negative: brought before, behind a gap); null when the stream never did or it was never applied. */
  streamAfterMs: number | null;
}

/** An op the storm made, named by what only that edit writes. */
const editKey = (op: Op): string | null =>
  op.type === 'state.add'
    ? op.id
    : op.type === 'state.update' && typeof op.changes.description === 'string'
      ? op.changes.description
      : null;

type Path = 'stream' | 'own receipt' | Exclude<MissingDelivery['applied'], 'never'>;

interface Editor {
  id: string;
  port: DocumentPort;
  doc: DocState<MachineDefinition, Op>;
  sending: boolean;
  state: string;
  /** Seq -> when and how this editor first applied it. */
  applied: Map<number, { at: number; path: Path }>;
  /** Seq -> when the op stream first brought it (applied or not). */
  streamed: Map<number, number>;
}

/** Wall-clock ms, comparable across the storm's processes on this machine. */
export const wallMs = () => performance.timeOrigin + performance.now();
const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/** How one editors' process (a shard of the storm) meets the others, through the process that runs the storm. */
export interface ShardLink {
  /** Reports this shard's people; answers the machine to edit once the owner made them members. */
  joined(userIds: string[]): Promise<string>;
  /** Reports every editor of this shard live and caught up; answers the wall-clock ms at which every shard starts. */
  ready(): Promise<number>;
  /** Reports this shard's edits all appended (or given up); resolves once every shard's are. */
  drained(): Promise<void>;
}

/** What one shard saw, in wall-clock ms, for the storm's figures to be worked out across shards. */
export interface ShardRecords {
  edits: number;
  tried: number;
  refusedBehind: number;
  refusedOther: number;
  dropped: number;
  receiptGaps: number;
  streamGaps: number;
  rolledBack: number;
  converged: number;
  roundTrip: number[];
  /** Batch id -> when its sender started its commit. */
  sentAt: [string, number][];
  /** Edit key -> when it was made. */
  madeAt: [string, number][];
  /** Each batch shown ahead at an editor: batch id, when, the keys of its edits. */
  shown: [string, number, string[]][];
  editors: { id: string; applied: [number, number, Path][]; streamed: [number, number][] }[];
}

/**
 * One shard of the storm: `editors` editors (the storm's `first`..`first + editors - 1`
 * of `total`), each ticking `rate` times a second for `seconds`, staggered across the
 * interval by their place among all `total`, every shard starting at the same moment.
 */
export async function runStormShard(options: {
  url: string;
  anonKey: string;
  editors: number;
  first: number;
  total: number;
  seconds: number;
  /** Edits each editor makes a second (default 1). */
  rate?: number;
  link: ShardLink;
  /** Called as the first edits start. */
  onStart?: () => void;
}): Promise<ShardRecords> {
  const people = [];
  for (let i = 0; i < options.editors; i++)
    people.push(await person(options.url, options.anonKey, `storm-${options.first + i}`));
  const machineId = await options.link.joined(people.map((p) => p.id));
  const firstPort = createMachinesAdapter(people[0]!.client);
  const opened = await firstPort.loadMachine(machineId);
  if (!opened.ok) throw new Error(opened.error.message);
  const start = receive(
    chartroomModel,
    createDoc<MachineDefinition, Op>(opened.value.definition, opened.value.version),
    opened.value.tail,
  ).state;
  const root = start.confirmed.root;
  const stateIds = start.confirmed.states[root]!.children;

  const sentAt = new Map<string, number>();
  const roundTrip: number[] = [];
  let refusedBehind = 0;
  let refusedOther = 0;
  let dropped = 0;
  let edits = 0;
  let tried = 0;
  let receiptGaps = 0;
  let streamGaps = 0;
  const madeAt = new Map<string, number>();
  const shown: [string, number, string[]][] = [];

  const editors: Editor[] = people.map((p, i) => ({
    id: `storm-${options.first + i}`,
    port: createMachinesAdapter(p.client),
    doc: start,
    sending: false,
    state: stateIds[(options.first + i) % stateIds.length]!,
    applied: new Map(),
    streamed: new Map(),
  }));
  /** Marks the seqs `e` has just applied (its version moved past them) as reached by `path`. */
  const reached = (e: Editor, from: number, path: Path) => {
    const at = wallMs();
    for (let seq = from + 1; seq <= e.doc.version; seq++) if (!e.applied.has(seq)) e.applied.set(seq, { at, path });
  };
  const apply = (e: Editor, ops: CommittedOp<Op>[], path: Path) => {
    const from = e.doc.version;
    const got = receive(chartroomModel, e.doc, ops);
    e.doc = got.state;
    dropped += got.dropped.length;
    reached(e, from, path);
    return got.gap;
  };
  const catchUp = async (e: Editor, path: Exclude<Path, 'stream' | 'own receipt'>) => {
    const log = await e.port.opsSince(machineId, e.doc.version);
    if (log.ok) apply(e, log.value, path);
  };
  const send = async (e: Editor): Promise<void> => {
    if (e.sending) return;
    e.sending = true;
    try {
      for (let taken = takeBatch(e.doc, randomUUID); taken; taken = takeBatch(e.doc, randomUUID)) {
        e.doc = taken.state;
        const t0 = wallMs();
        sentAt.set(taken.batch.batchId, t0);
        const result = await e.port.commitOps({
          machineId,
          clientId: e.id,
          batchId: taken.batch.batchId,
          ops: taken.batch.ops,
        });
        roundTrip.push(wallMs() - t0);
        if (!result.ok) {
          if (/behind|conflict|version/i.test(result.error.message)) refusedBehind++;
          else refusedOther++;
          if (result.error.code === 'network' || result.error.code === 'unknown') {
            await sleep(200);
            continue;
          }
          return;
        }
        const from = e.doc.version;
        const landed = committed(chartroomModel, e.doc, taken.batch.batchId, result.receipt);
        e.doc = landed.state;
        dropped += landed.dropped.length;
        reached(e, from, 'own receipt');
        if (landed.gap) {
          receiptGaps++;
          await catchUp(e, 'log read after a receipt gap');
        }
      }
    } finally {
      e.sending = false;
    }
  };

  // Everyone follows the machine's op stream.
  const subscriptions = await Promise.all(
    editors.map(
      (e) =>
        new Promise<{ unsubscribe(): void }>((resolve) => {
          // Live once both the log's channel and the one for batches sent ahead have joined.
          let live = 0;
          const sub = e.port.opEvents$(machineId).subscribe((event) => {
            if (event.type === 'ops.subscribed' || event.type === 'ops.aheadLive') if (++live === 2) resolve(sub);
            if (event.type === 'ops.seen') {
              // Shown at once, as the app's document does.
              const keys: string[] = [];
              for (const op of event.batch.ops) {
                const key = editKey(op);
                if (key !== null) keys.push(key);
              }
              shown.push([event.batch.batchId, wallMs(), keys]);
              e.doc = seen(chartroomModel, e.doc, event.batch);
              return;
            }
            if (event.type !== 'ops.received') return;
            const at = wallMs();
            for (const op of event.ops) if (!e.streamed.has(op.seq)) e.streamed.set(op.seq, at);
            if (apply(e, event.ops, 'stream')) {
              streamGaps++;
              void catchUp(e, 'log read after a stream gap');
            }
          });
        }),
    ),
  );
  for (const e of editors) await catchUp(e, 'log read on joining');

  // Each editor ticks `rate` times a second, staggered across the interval by its place among all editors.
  const startAt = await options.link.ready();
  await sleep(Math.max(0, startAt - wallMs()));
  options.onStart?.();
  const interval = 1000 / (options.rate ?? 1);
  await Promise.all(
    editors.map(async (e, i) => {
      await sleep((interval / options.total) * (options.first + i));
      // Each editor's own window of `seconds` from its first tick: `rate` x `seconds` ticks when on time.
      const stopAt = Date.now() + options.seconds * 1000;
      for (let tick = 0; Date.now() < stopAt; tick++) {
        const next = Date.now() + interval;
        const op: Op =
          tick % 10 === 9
            ? {
                type: 'state.add',
                id: `s_${e.id}_${tick}`,
                parent: root,
                key: `added${tick}`,
                stateType: 'atomic',
                index: null,
              }
            : { type: 'state.update', id: e.state, changes: { description: `${e.id} tick ${tick}` } };
        tried++;
        const result = edit(chartroomModel, e.doc, [op]);
        if (result.ok) {
          e.doc = result.state;
          edits++;
          madeAt.set(editKey(op)!, wallMs());
        }
        void send(e);
        await sleep(Math.max(0, next - Date.now()));
      }
    }),
  );
  // Let the last batches land.
  const deadline = Date.now() + 15_000;
  while (editors.some((e) => e.sending || e.doc.pending.length > 0 || e.doc.inflight) && Date.now() < deadline) {
    for (const e of editors) if (!e.sending && (e.doc.pending.length > 0 || e.doc.inflight)) void send(e);
    await sleep(50);
  }
  await options.link.drained();
  // Every shard's edits are in the log: let the stream settle.
  const log = await firstPort.opsSince(machineId, 0);
  if (!log.ok) throw new Error(log.error.message);
  const head = log.value.length;
  // Others' ops of the storm, each to be brought by the stream to every editor here.
  const stormOps = log.value.filter((x) => x.seq > opened.value.version && x.clientId.startsWith('storm-'));
  const streamedAll = (e: Editor) => stormOps.every((x) => x.clientId === e.id || e.streamed.has(x.seq));
  // Every editor at the log's head, and the stream's copy of every op at every editor (the
  // deadline only bounds a copy that never comes: it is counted as not streamed).
  const settleBy = Date.now() + 15_000;
  while (editors.some((e) => e.doc.version < head || !streamedAll(e)) && Date.now() < settleBy) await sleep(50);
  for (const e of editors) if (e.doc.version < head) await catchUp(e, 'log read at the end');
  for (const s of subscriptions) s.unsubscribe();
  // What the time-out would roll back: batches shown ahead that the log never confirmed.
  let rolledBack = 0;
  for (const e of editors)
    for (const batch of e.doc.remote ?? []) {
      rolledBack++;
      e.doc = forget(chartroomModel, e.doc, batch.batchId).state;
    }
  const replay = receive(
    chartroomModel,
    createDoc<MachineDefinition, Op>(opened.value.definition, opened.value.version),
    log.value.filter((x) => x.seq > opened.value.version),
  ).state.confirmed;
  const converged = editors.filter(
    (e) =>
      JSON.stringify(e.doc.confirmed) === JSON.stringify(replay) &&
      JSON.stringify(e.doc.local) === JSON.stringify(replay),
  ).length;
  await Promise.all(people.map((p) => p.client.removeAllChannels()));
  return {
    edits,
    tried,
    refusedBehind,
    refusedOther,
    dropped,
    receiptGaps,
    streamGaps,
    rolledBack,
    converged,
    roundTrip,
    sentAt: [...sentAt],
    madeAt: [...madeAt],
    shown,
    editors: editors.map((e) => ({
      id: e.id,
      applied: [...e.applied].map(([seq, got]) => [seq, got.at, got.path]),
      streamed: [...e.streamed],
    })),
  };
}

/**
 * The storm's figures from every shard's records and the log (`log`: the machine's ops
 * after `fromVersion`, the version its editors opened), with when each batch reached the
 * observer (wall-clock ms by batch id; empty without one).
 */
export function stormFigures(
  shards: readonly ShardRecords[],
  log: readonly CommittedOp<Op>[],
  observed: ReadonlyMap<string, number> = new Map(),
): StormFigures {
  const sentAt = new Map(shards.flatMap((s) => s.sentAt));
  const madeAt = new Map(shards.flatMap((s) => s.madeAt));
  const sum = (key: keyof ShardRecords) => shards.reduce((n, s) => n + (s[key] as number), 0);
  const editors = shards.flatMap((s) =>
    s.editors.map((e) => ({
      id: e.id,
      applied: new Map(e.applied.map(([seq, at, path]) => [seq, { at, path }])),
      streamed: new Map(e.streamed),
    })),
  );
  const delivery: number[] = [];
  const editDelivery: number[] = [];
  const notStreamed: MissingDelivery[] = [];
  const fromLogRead: MissingDelivery[] = [];
  // Others' ops of the storm, each to be applied by every other editor and brought by the stream.
  const stormOps = log.filter((x) => x.clientId.startsWith('storm-'));
  for (const entry of stormOps) {
    const t0 = sentAt.get(entry.batchId);
    const made = madeAt.get(editKey(entry.op) ?? '');
    for (const e of editors) {
      if (e.id === entry.clientId) continue;
      const got = e.applied.get(entry.seq);
      const streamedAt = e.streamed.get(entry.seq);
      if (got) {
        if (t0 !== undefined) delivery.push(got.at - t0);
        if (made !== undefined) editDelivery.push(got.at - made);
      }
      if (got?.path === 'stream') continue;
      const how: MissingDelivery = {
        seq: entry.seq,
        author: entry.clientId,
        peer: e.id,
        applied: got && got.path !== 'own receipt' ? got.path : 'never',
        streamAfterMs: streamedAt === undefined || !got ? null : streamedAt - got.at,
      };
      if (streamedAt === undefined) notStreamed.push(how);
      else fromLogRead.push(how);
    }
  }
  const ahead: number[] = [];
  const editAhead: number[] = [];
  for (const s of shards)
    for (const [batchId, at, keys] of s.shown) {
      const t0 = sentAt.get(batchId);
      if (t0 !== undefined) ahead.push(at - t0);
      for (const key of keys) {
        const made = madeAt.get(key);
        if (made !== undefined) editAhead.push(at - made);
      }
    }
  const observerDelivery: number[] = [];
  for (const [batchId, at] of observed) {
    const t0 = sentAt.get(batchId);
    if (t0 !== undefined) observerDelivery.push(at - t0);
  }
  return {
    edits: sum('edits'),
    tried: sum('tried'),
    appendedOps: stormOps.length,
    refusedBehind: sum('refusedBehind'),
    refusedOther: sum('refusedOther'),
    converged: sum('converged'),
    delivery: summarize(delivery),
    roundTrip: summarize(shards.flatMap((s) => s.roundTrip)),
    dropped: sum('dropped'),
    receiptGaps: sum('receiptGaps'),
    streamGaps: sum('streamGaps'),
    observerDelivery: summarize(observerDelivery),
    aheadDelivery: summarize(ahead),
    rolledBack: sum('rolledBack'),
    editDelivery: summarize(editDelivery),
    editAhead: summarize(editAhead),
    expectedDeliveries: stormOps.length * (editors.length - 1),
    notStreamed,
    fromLogRead,
  };
}

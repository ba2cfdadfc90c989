import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../src/adapters/supabase/database.types.ts';
import { createMachinesAdapter } from '../src/adapters/supabase/machines.ts';
import { chartroomModel } from '../src/lib/collab/chartroom.ts';
import { committed, createDoc, edit, forget, receive, seen, takeBatch } from '../src/lib/collab/doc.ts';
import type { CommittedOp, DocState } from '../src/lib/collab/types.ts';
import type { Op } from '../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../src/lib/model/types.ts';
import type { DocumentPort } from '../src/lib/ports/document.ts';
import { summarize, type Summary } from './lib.ts';
import type { StormObserver } from './storm-process.ts';
import { definitionWith, person } from './sections/collab.ts';

/**
 * Many editors on one machine, each committing about once a second through the machines
 * adapter and the collab core (as the document machine does: one batch on the wire at a
 * time, edits made meanwhile leave together as the next batch), all following the
 * machine's op stream. Every tenth edit adds a state under the root with a key other
 * editors pick at the same moment (a collision to mend); the rest edit the editor's own
 * state. Delivery is timed from the sender starting its commit to each other editor
 * applying the op.
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

const now = () => Number(process.hrtime.bigint()) / 1e6;
/** Wall-clock ms, comparable with the observer's process on the same machine. */
const wallMs = () => performance.timeOrigin + performance.now();
const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

export async function runStorm(options: {
  url: string;
  anonKey: string;
  owner: { client: SupabaseClient<Database>; id: string };
  projectId: string;
  editors: number;
  seconds: number;
  /** Edits each editor makes a second (default 1). */
  rate?: number;
  /** Called once everyone is signed up, joined and caught up, as the first edits start. */
  onStart?: () => void;
  /** A client following the machine in a process of its own (made a member here). */
  observer?: StormObserver;
}): Promise<StormFigures> {
  const ownerPort = createMachinesAdapter(options.owner.client);
  const created = await ownerPort.createMachine({
    projectId: options.projectId,
    name: 'storm',
    definition: definitionWith(options.editors),
  });
  if (!created.ok) throw new Error(created.error.message);
  const machineId = created.value.id;
  const people = [];
  for (let i = 0; i < options.editors; i++) people.push(await person(options.url, options.anonKey, `storm-${i}`));
  const added = await options.owner.client.from('project_members').insert(
    people.map((p) => ({
      project_id: options.projectId,
      user_id: p.id,
      role: 'editor' as const,
      joined_via: 'added' as const,
    })),
  );
  if (added.error) throw new Error(added.error.message);
  if (options.observer) {
    const watcher = await options.owner.client.from('project_members').insert({
      project_id: options.projectId,
      user_id: options.observer.userId,
      role: 'viewer',
      joined_via: 'added',
    });
    if (watcher.error) throw new Error(watcher.error.message);
    await options.observer.follow(machineId);
  }

  const opened = await ownerPort.loadMachine(machineId);
  if (!opened.ok) throw new Error(opened.error.message);
  const start = receive(
    chartroomModel,
    createDoc<MachineDefinition, Op>(opened.value.definition, opened.value.version),
    opened.value.tail,
  ).state;
  const root = start.confirmed.root;
  const stateIds = start.confirmed.states[root]!.children;

  const sentAt = new Map<string, number>();
  const sentAtWall = new Map<string, number>();
  const delivery: number[] = [];
  const roundTrip: number[] = [];
  let refusedBehind = 0;
  let refusedOther = 0;
  let dropped = 0;
  let edits = 0;
  let tried = 0;
  let receiptGaps = 0;
  let streamGaps = 0;
  const ahead: number[] = [];
  const madeAt = new Map<string, number>();
  const editDelivery: number[] = [];
  const editAhead: number[] = [];

  const editors: Editor[] = people.map((p, i) => ({
    id: `storm-${i}`,
    port: createMachinesAdapter(p.client),
    doc: start,
    sending: false,
    state: stateIds[i % stateIds.length]!,
    applied: new Map(),
    streamed: new Map(),
  }));
  /** Marks the seqs `e` has just applied (its version moved past them) as reached by `path`. */
  const reached = (e: Editor, from: number, path: Path) => {
    const at = now();
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
        const t0 = now();
        sentAt.set(taken.batch.batchId, t0);
        sentAtWall.set(taken.batch.batchId, wallMs());
        const result = await e.port.commitOps({
          machineId,
          clientId: e.id,
          batchId: taken.batch.batchId,
          ops: taken.batch.ops,
        });
        roundTrip.push(now() - t0);
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
              const t0 = sentAt.get(event.batch.batchId);
              const at = now();
              if (t0 !== undefined) ahead.push(at - t0);
              for (const op of event.batch.ops) {
                const made = madeAt.get(editKey(op) ?? '');
                if (made !== undefined) editAhead.push(at - made);
              }
              e.doc = seen(chartroomModel, e.doc, event.batch);
              return;
            }
            if (event.type !== 'ops.received') return;
            const at = now();
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

  // Each editor ticks `rate` times a second, staggered across the interval.
  options.onStart?.();
  const interval = 1000 / (options.rate ?? 1);
  await Promise.all(
    editors.map(async (e, i) => {
      await sleep((interval / editors.length) * i);
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
          madeAt.set(editKey(op)!, now());
        }
        void send(e);
        await sleep(Math.max(0, next - Date.now()));
      }
    }),
  );
  // Let the last batches land and the stream settle.
  const deadline = Date.now() + 15_000;
  while (editors.some((e) => e.sending || e.doc.pending.length > 0 || e.doc.inflight) && Date.now() < deadline) {
    for (const e of editors) if (!e.sending && (e.doc.pending.length > 0 || e.doc.inflight)) void send(e);
    await sleep(50);
  }
  const log = await ownerPort.opsSince(machineId, 0);
  if (!log.ok) throw new Error(log.error.message);
  const head = log.value.length;
  // Others' ops of the storm, each to be applied by every other editor and brought by the stream.
  const stormOps = log.value.filter((x) => x.seq > opened.value.version && x.clientId.startsWith('storm-'));
  const streamedAll = (e: Editor) => stormOps.every((x) => x.clientId === e.id || e.streamed.has(x.seq));
  // Every editor at the log's head, and the stream's copy of every op at every editor (the
  // deadline only bounds a copy that never comes: it is counted below as not streamed).
  while (editors.some((e) => e.doc.version < head || !streamedAll(e)) && Date.now() < deadline) await sleep(50);
  for (const e of editors) if (e.doc.version < head) await catchUp(e, 'log read at the end');
  for (const s of subscriptions) s.unsubscribe();
  const notStreamed: MissingDelivery[] = [];
  const fromLogRead: MissingDelivery[] = [];
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
  // What the time-out would roll back: batches shown ahead that the log never confirmed.
  let rolledBack = 0;
  for (const e of editors)
    for (const batch of e.doc.remote ?? []) {
      rolledBack++;
      e.doc = forget(chartroomModel, e.doc, batch.batchId).state;
    }
  const observed: number[] = [];
  if (options.observer) {
    for (const [batchId, at] of await options.observer.finish()) {
      const t0 = sentAtWall.get(batchId);
      if (t0 !== undefined) observed.push(at - t0);
    }
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
  const appendedOps = log.value.filter((x) => x.clientId.startsWith('storm-')).length;
  return {
    edits,
    tried,
    appendedOps,
    refusedBehind,
    refusedOther,
    converged,
    delivery: summarize(delivery),
    roundTrip: summarize(roundTrip),
    dropped,
    receiptGaps,
    streamGaps,
    observerDelivery: summarize(observed),
    aheadDelivery: summarize(ahead),
    rolledBack,
    editDelivery: summarize(editDelivery),
    editAhead: summarize(editAhead),
    expectedDeliveries: appendedOps * (editors.length - 1),
    notStreamed,
    fromLogRead,
  };
}

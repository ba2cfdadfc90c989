import { applyAll, explainWith, landAsWritten, resolveWith } from './rebase.ts';
import { confirmsShown, rememberShown, resolveAll, resolveWhole, shownBase, shownFor, shownOf } from './shown-stack.ts';
import type {
  CommitReceipt,
  CommittedOp,
  DocState,
  DroppedOp,
  InflightBatch,
  OpModel,
  QueueSnapshot,
  RemoteBatch,
} from './types.ts';

/**
 * The client side of the append protocol as pure transitions over `DocState`. The
 * document statechart (machines/open-machine/document.machine.ts) decides when each runs; these
 * functions decide what it does to the document. Invariants:
 * - `confirmed` is the log's ops 1..`version` resolved in seq order (`resolveWith`), the
 *   same fold every client and the checkpoint replay compute;
 * - `local` is `confirmed` + inflight ops + pending ops, resolved the same way: what
 *   this person sees is what the log will hold if nobody else appends first;
 * - a batch is appended at most once: it keeps its id across retries, and the server
 *   answers a known id with its original range. Appending never fails for being behind.
 */

/** Ops per append; the server takes at most 1000 per call. */
export const MAX_BATCH = 500;

/** Bytes of ops (as JSON) per append and per edit; commit_machine_ops refuses more (54000). */
export const MAX_BATCH_BYTES = 512 * 1024;

export const sizeOf = (ops: readonly unknown[]): number => new TextEncoder().encode(JSON.stringify(ops)).length;

/** "1.2 MB", "300 KB": sizes as people read them. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

/** Why an edit cannot be saved at all (too big for one append), or null. */
export function tooBig(ops: readonly unknown[]): string | null {
  const bytes = sizeOf(ops);
  if (bytes <= MAX_BATCH_BYTES) return null;
  return `This edit is too big to save: ${formatBytes(bytes)}, and one edit can be at most ${formatBytes(MAX_BATCH_BYTES)}. Nothing was changed; split it into smaller edits.`;
}

export function createDoc<D, O>(doc: D, version: number): DocState<D, O> {
  return { confirmed: doc, version, inflight: null, pending: [], local: doc };
}

export function snapshotOf<D, O>(state: DocState<D, O>): QueueSnapshot<D, O> {
  return { confirmed: state.confirmed, version: state.version, inflight: state.inflight, pending: state.pending };
}

/** A document from a stored queue: `local` is rebuilt, ops that no longer apply dropped. */
export function restoreDoc<D, O>(
  model: OpModel<D, O>,
  saved: QueueSnapshot<D, O>,
): { state: DocState<D, O>; dropped: DroppedOp<O>[] } {
  // A queue stored before the append protocol carried a base and a document: keep the ops.
  const inflight = saved.inflight
    ? { batchId: saved.inflight.batchId, ops: saved.inflight.ops, acked: saved.inflight.acked ?? null }
    : null;
  return rebuild(model, { ...saved, inflight, local: saved.confirmed });
}

export function hasUnsent<D, O>(state: DocState<D, O>): boolean {
  return state.inflight !== null || state.pending.length > 0;
}

/** How many of `ops`, from the front, fit in one append (at least one: an edit is never over the limits, `tooBig`). */
export function batchLength(ops: readonly unknown[]): number {
  let count = 0;
  let bytes = 2;
  while (count < Math.min(MAX_BATCH, ops.length)) {
    const next = sizeOf([ops[count]]);
    if (count > 0 && bytes + next > MAX_BATCH_BYTES) break;
    bytes += next;
    count++;
  }
  return count;
}

/** Whether `takeBatch` has something to send now. */
export function canSend<D, O>(state: DocState<D, O>): boolean {
  return state.inflight ? state.inflight.acked === null : state.pending.length > 0;
}

export function unsentCount<D, O>(state: DocState<D, O>): number {
  return (state.inflight?.ops.length ?? 0) + state.pending.length;
}

/** This person's edit, applied at once (optimistic) and queued; refused whole if any op fails. */
export function edit<D, O>(
  model: OpModel<D, O>,
  state: DocState<D, O>,
  ops: readonly O[],
): { ok: true; state: DocState<D, O> } | { ok: false; error: unknown; op: O } {
  const applied = applyAll(model, state.local, ops);
  if (!applied.ok) return applied;
  return { ok: true, state: { ...state, pending: [...state.pending, ...ops], local: applied.doc } };
}

/**
 * The batch to send: the inflight one again (a retry reuses its id), or the pending ops
 * (at most MAX_BATCH) under a fresh id. Null when there is nothing to send, or when the
 * inflight batch is acknowledged and only waits for the log before it.
 */
export function takeBatch<D, O>(
  state: DocState<D, O>,
  newBatchId: () => string,
): { state: DocState<D, O>; batch: InflightBatch<O> } | null {
  if (state.inflight) return state.inflight.acked ? null : { state, batch: state.inflight };
  if (state.pending.length === 0) return null;
  const count = batchLength(state.pending);
  const batch: InflightBatch<O> = { batchId: newBatchId(), ops: state.pending.slice(0, count), acked: null };
  return { state: { ...state, inflight: batch, pending: state.pending.slice(count) }, batch };
}

export interface Landed<D, O> {
  state: DocState<D, O>;
  /** Ops before ours (or after a missing seq) have not reached us: fetch the log from `state.version`. */
  gap: boolean;
  /** This person's ops that did not apply as written, with why (told to them, not to others). */
  dropped: DroppedOp<O>[];
}

/**
 * The server appended our batch at `receipt.firstSeq..lastSeq`. When everything before it
 * is already confirmed, the batch is applied to `confirmed` here; otherwise it is marked
 * acknowledged and the log is fetched (`gap`), which confirms it in order.
 */
export function committed<D, O>(
  model: OpModel<D, O>,
  state: DocState<D, O>,
  batchId: string,
  receipt: CommitReceipt,
): Landed<D, O> {
  const inflight = state.inflight;
  // Already confirmed by its echo in the stream, or not ours any more.
  if (!inflight || inflight.batchId !== batchId) return { state, gap: receipt.version > state.version, dropped: [] };
  if (state.version + 1 === receipt.firstSeq) {
    const entries = inflight.ops.map((op, i) => ({ seq: receipt.firstSeq + i, batchId, clientId: '', op }));
    const got = receive(model, state, entries);
    return { state: got.state, gap: got.gap || receipt.version > got.state.version, dropped: got.dropped };
  }
  const acked = { firstSeq: receipt.firstSeq, lastSeq: receipt.lastSeq };
  return { state: { ...state, inflight: { ...inflight, acked } }, gap: true, dropped: [] };
}

export interface Received<D, O> extends Landed<D, O> {
  /** Logged ops that became no-ops (anyone's): skipped by every client alike. */
  skipped: CommittedOp<O>[];
}

/**
 * Logged ops from the realtime stream or a fetch, in any order, duplicates allowed.
 * Ops at or below `version` are known and skipped; the next seq is resolved onto
 * `confirmed`; a seq beyond the next is a gap and stops here. Our own batch is recognised
 * by its id and leaves `inflight` once all of it is confirmed. When anyone else's op
 * landed, our queue is rebased: `local` = `confirmed` + inflight + pending, resolved.
 */
export function receive<D, O>(
  model: OpModel<D, O>,
  state: DocState<D, O>,
  ops: readonly CommittedOp<O>[],
): Received<D, O> {
  const sorted = [...ops].sort((a, b) => a.seq - b.seq);
  const ahead = confirmedAhead(model, state, sorted);
  if (ahead) return ahead;
  let { confirmed, version, inflight } = state;
  const landedBatches = new Set<string>();
  let foreign = false;
  let gap = false;
  let ownSeen = 0;
  const skipped: CommittedOp<O>[] = [];
  const dropped: DroppedOp<O>[] = [];
  // The ops this delivery can apply (the next seqs, up to a gap) in one step when all apply as written.
  const run: O[] = [];
  for (const entry of sorted) if (entry.seq === version + run.length + 1) run.push(entry.op);
  const all = landAsWritten(model, confirmed, run);
  for (const entry of sorted) {
    if (entry.seq <= version) continue;
    if (entry.seq > version + 1) {
      gap = true;
      break;
    }
    const landed = all ? { doc: confirmed, applied: [entry.op], error: null } : resolveWith(model, confirmed, entry.op);
    confirmed = landed.doc;
    version = entry.seq;
    const own = inflight !== null && entry.batchId === inflight.batchId;
    if (landed.applied.length === 0) {
      skipped.push(entry);
      if (own) dropped.push({ op: entry.op, reason: explainWith(model, entry.op, landed.error) });
    }
    if (own && inflight) {
      ownSeen++;
      const last = inflight.acked ? inflight.acked.lastSeq : null;
      if (version === last || (last === null && ownSeen === inflight.ops.length)) inflight = null;
    } else {
      foreign = true;
      landedBatches.add(entry.batchId);
    }
  }
  if (all) confirmed = all;
  // Part of our batch was confirmed in this delivery: keep only the rest as inflight.
  if (inflight && ownSeen > 0 && inflight === state.inflight)
    inflight = { ...inflight, ops: inflight.ops.slice(ownSeen) };
  const next = { ...state, confirmed, version, inflight, ...settle(state, landedBatches) };
  if (!foreign && inflight === state.inflight && ownSeen === 0) return { state: next, gap, dropped, skipped };
  // The common case with others editing: the log confirmed, in the order shown, whole
  // batches already shown on top of `confirmed`. Confirmed + the rest of them is then the
  // same document as before, and so is what this person sees: nothing is applied again.
  if (ownSeen === 0 && inflight === state.inflight && confirmsShown(state, sorted) > 0) {
    const kept = next.remote ?? [];
    if (kept.length > 0) {
      const shown = shownOf(model, state);
      rememberShown(kept, { confirmed, docs: shown.docs.slice(-kept.length), whole: shown.whole.slice(-kept.length) });
    }
    if (kept.length > 0 || state.pending.length === 0)
      return { state: { ...next, local: state.local }, gap, dropped, skipped };
  }
  const rebuilt = rebuild(model, next);
  return { state: rebuilt.state, gap, dropped: [...dropped, ...rebuilt.dropped], skipped };
}

/** How many confirmed batch ids a document remembers, to ignore late copies of others' batches. */
export const RECENT_BATCHES = 256;

/** Others' batches the log just confirmed leave `remote` and are remembered as landed. */
function settle<D, O>(
  state: DocState<D, O>,
  landed: ReadonlySet<string>,
): Pick<DocState<D, O>, 'remote' | 'recent'> | object {
  if (landed.size === 0) return {};
  const remote = (state.remote ?? []).filter((b) => !landed.has(b.batchId));
  const recent = [...(state.recent ?? []), ...landed].slice(-RECENT_BATCHES);
  return { remote, recent };
}

/**
 * Another client's batch, seen before the log confirmed it (it sends each batch to its
 * peers as it sends it to the server): shown at once on top of `confirmed`, under this
 * person's own ops. Ignored when the log already confirmed it, when it is already shown,
 * or when it is empty. It never touches `confirmed` or the queue: the log's copy does.
 */
export function seen<D, O>(model: OpModel<D, O>, state: DocState<D, O>, batch: RemoteBatch<O>): DocState<D, O> {
  const remote = state.remote ?? [];
  if (batch.ops.length === 0) return state;
  if (state.recent?.includes(batch.batchId) || remote.some((b) => b.batchId === batch.batchId)) return state;
  if (state.inflight?.batchId === batch.batchId) return state;
  // Others' batches shown so far stay applied: the new one lands on top of them.
  const next = [...remote, batch];
  const shown = shownOf(model, state);
  const landed = resolveWhole(model, shown.docs[shown.docs.length - 1] ?? state.confirmed, batch.ops);
  rememberShown(next, {
    confirmed: state.confirmed,
    docs: [...shown.docs, landed.doc],
    whole: [...shown.whole, landed.whole],
  });
  return rebuild(model, { ...state, remote: next }).state;
}

/**
 * Rolls back another client's batch that the log never confirmed in time (its author went
 * offline, or the server refused it): it leaves the view as if never seen. An edit of
 * ours made on top of it that no longer applies is dropped and reported, as on a rebase.
 */
export function forget<D, O>(
  model: OpModel<D, O>,
  state: DocState<D, O>,
  batchId: string,
): { state: DocState<D, O>; dropped: DroppedOp<O>[] } {
  const remote = state.remote ?? [];
  if (!remote.some((b) => b.batchId === batchId)) return { state, dropped: [] };
  return rebuild(model, { ...state, remote: remote.filter((b) => b.batchId !== batchId) });
}

/** The server will never take our unsent ops (refused): they leave, and the view is the log plus others' batches shown. */
export function dropQueue<D, O>(model: OpModel<D, O>, state: DocState<D, O>): DocState<D, O> {
  return rebuild(model, { ...state, inflight: null, pending: [] }).state;
}

/** Whether another client's batch is shown but not yet confirmed. */
export const isShownRemote = <D, O>(state: DocState<D, O>, batchId: string): boolean =>
  (state.remote ?? []).some((b) => b.batchId === batchId);

/**
 * local = confirmed + others' unconfirmed batches + inflight + pending, each op resolved
 * as the log would. While others' batches are shown, nothing leaves the queue: whether
 * an op of ours still applies is decided on the log alone, once they are confirmed or
 * forgotten (so a batch that is rolled back never costs us an edit).
 */
function overlay<D, O>(model: OpModel<D, O>, state: DocState<D, O>): DocState<D, O> {
  const own = [...(state.inflight?.ops ?? []), ...state.pending];
  return { ...state, local: resolveAll(model, shownBase(model, state), own) };
}

/**
 * A delivery that confirms, in the order shown, the first whole batches of others shown
 * ahead, each of which landed whole when shown: `confirmed` becomes the document already
 * worked out for them (the same fold), and nothing is applied again. Null otherwise.
 */
function confirmedAhead<D, O>(
  model: OpModel<D, O>,
  state: DocState<D, O>,
  sorted: readonly CommittedOp<O>[],
): Received<D, O> | null {
  const count = confirmsShown(state, sorted);
  const remote = state.remote ?? [];
  const shown = count > 0 ? shownFor(remote) : undefined;
  if (!shown || shown.confirmed !== state.confirmed || !shown.whole.slice(0, count).every(Boolean)) return null;
  const confirmed = shown.docs[count - 1] as D | undefined;
  if (confirmed === undefined) return null;
  const landed = remote.slice(0, count);
  const version = state.version + landed.reduce((n, b) => n + b.ops.length, 0);
  const next = { ...state, confirmed, version, ...settle(state, new Set(landed.map((b) => b.batchId))) };
  const gap = sorted.some((e) => e.seq > version);
  const kept = next.remote ?? [];
  if (kept.length > 0)
    rememberShown(kept, { confirmed, docs: shown.docs.slice(count), whole: shown.whole.slice(count) });
  if (kept.length > 0 || state.pending.length === 0)
    return { state: { ...next, local: state.local }, gap, dropped: [], skipped: [] };
  const rebuilt = rebuild(model, next);
  return { state: rebuilt.state, gap, dropped: rebuilt.dropped, skipped: [] };
}

/**
 * local = confirmed + inflight + pending. Inflight ops are on the wire as they are (the
 * log will resolve them); pending ops that would now be no-ops are dropped from the queue
 * and reported, since sending them would change nothing.
 */
function rebuild<D, O>(
  model: OpModel<D, O>,
  state: DocState<D, O>,
): { state: DocState<D, O>; dropped: DroppedOp<O>[] } {
  if ((state.remote?.length ?? 0) > 0) return { state: overlay(model, state), dropped: [] };
  const inflight = state.inflight?.ops ?? [];
  let local = landAsWritten(model, state.confirmed, inflight) ?? state.confirmed;
  if (local === state.confirmed) for (const op of inflight) local = resolveWith(model, local, op).doc;
  const all = landAsWritten(model, local, state.pending);
  if (all) return { state: { ...state, local: all }, dropped: [] };
  const kept: O[] = [];
  const dropped: DroppedOp<O>[] = [];
  for (const op of state.pending) {
    const landed = resolveWith(model, local, op);
    if (landed.applied.length === 0) {
      dropped.push({ op, reason: explainWith(model, op, landed.error) });
      continue;
    }
    local = landed.doc;
    kept.push(op);
  }
  return { state: { ...state, pending: kept, local }, dropped };
}

import { applyAll, applyEach } from './rebase.ts';
import type { CommitReceipt, CommittedOp, DocState, InflightBatch, OpModel, QueueSnapshot } from './types.ts';

/**
 * The client side of the commit protocol as pure transitions over `DocState`. The
 * document statechart (machines/document.machine.ts) decides when each runs; these
 * functions decide what it does to the document. Invariants:
 * - `confirmed` is the fold of the log's ops 1..`version`, applied in seq order;
 * - `local` is `confirmed` + inflight ops + pending ops, with ops that no longer apply
 *   dropped from the queue (and reported);
 * - a batch is committed at most once: it keeps its id across retries, and the server
 *   answers a known id with its original range.
 */

/** Ops per commit; the server takes at most 1000 per call. */
export const MAX_BATCH = 500;

export function createDoc<D, O>(doc: D, version: number): DocState<D, O> {
  return { confirmed: doc, version, inflight: null, pending: [], local: doc };
}

export function snapshotOf<D, O>(state: DocState<D, O>): QueueSnapshot<D, O> {
  return { confirmed: state.confirmed, version: state.version, inflight: state.inflight, pending: state.pending };
}

/** A document from a stored queue: `local` is rebuilt, ops that no longer apply dropped. */
export function restoreDoc<D, O>(model: OpModel<D, O>, saved: QueueSnapshot<D, O>): { state: DocState<D, O>; dropped: O[] } {
  return rebuild(model, { ...saved, local: saved.confirmed });
}

export function hasUnsent<D, O>(state: DocState<D, O>): boolean {
  return state.inflight !== null || state.pending.length > 0;
}

/** This person's edit, applied at once (optimistic) and queued; refused whole if any op fails. */
export function edit<D, O>(model: OpModel<D, O>, state: DocState<D, O>, ops: readonly O[]): { ok: true; state: DocState<D, O> } | { ok: false; error: unknown; op: O } {
  const applied = applyAll(model, state.local, ops);
  if (!applied.ok) return applied;
  return { ok: true, state: { ...state, pending: [...state.pending, ...ops], local: applied.doc } };
}

/**
 * The batch to send: the inflight one again (a retry must reuse its id and base), or the
 * pending ops (at most MAX_BATCH) under a fresh id. Null when there is nothing to send.
 */
export function takeBatch<D, O>(model: OpModel<D, O>, state: DocState<D, O>, newBatchId: () => string): { state: DocState<D, O>; batch: InflightBatch<D, O> } | null {
  if (state.inflight) return { state, batch: state.inflight };
  if (state.pending.length === 0) return null;
  const ops = state.pending.slice(0, MAX_BATCH);
  const rest = state.pending.slice(MAX_BATCH);
  // Every pending op applies to `confirmed` (rebuild keeps that true), so this cannot drop.
  const doc = rest.length === 0 ? state.local : applyEach(model, state.confirmed, ops).doc;
  const batch: InflightBatch<D, O> = { batchId: newBatchId(), base: state.version, ops, doc };
  return { state: { ...state, inflight: batch, pending: rest }, batch };
}

/** The server committed our batch: confirmed moves to its end; what we see is unchanged. */
export function committed<D, O>(model: OpModel<D, O>, state: DocState<D, O>, batchId: string, receipt: CommitReceipt): { state: DocState<D, O>; gap: boolean } {
  const inflight = state.inflight;
  // Already confirmed by its echo in the stream, or not ours any more.
  if (!inflight || inflight.batchId !== batchId) return { state, gap: receipt.version > state.version };
  const seen = state.version - inflight.base;
  const confirmed = seen === 0 ? inflight.doc : applyEach(model, state.confirmed, inflight.ops.slice(seen)).doc;
  const next = { ...state, confirmed, version: receipt.lastSeq, inflight: null };
  // A duplicate answer may report later ops we have not seen yet.
  return { state: next, gap: receipt.version > receipt.lastSeq };
}

/** The server refused our batch (stale base): its ops go back to the front of the queue. */
export function conflicted<D, O>(state: DocState<D, O>, batchId: string): DocState<D, O> {
  if (!state.inflight || state.inflight.batchId !== batchId) return state;
  return { ...state, inflight: null, pending: [...state.inflight.ops, ...state.pending] };
}

export interface Received<D, O> {
  state: DocState<D, O>;
  /** Ops after a missing seq were seen: fetch the log from `state.version`. */
  gap: boolean;
  /** Our queued ops that no longer apply after others' edits, removed from the queue. */
  dropped: O[];
  /** Committed ops from others that did not apply (a buggy client); skipped by everyone alike. */
  invalid: CommittedOp<O>[];
}

/**
 * Committed ops from the realtime stream or the log, in any order, duplicates allowed.
 * Ops at or below `version` are known (our own echoes after their receipt, repeats) and
 * skipped; the next seq is applied; a seq beyond the next is a gap and stops here.
 * Our own batch is recognised by its id; anyone else's op at base+1 proves our inflight
 * batch was refused, so its ops rejoin the queue and the queue is rebased.
 */
export function receive<D, O>(model: OpModel<D, O>, state: DocState<D, O>, ops: readonly CommittedOp<O>[]): Received<D, O> {
  const sorted = [...ops].sort((a, b) => a.seq - b.seq);
  let { confirmed, version, inflight, pending } = state;
  let foreign = false;
  let gap = false;
  const invalid: CommittedOp<O>[] = [];
  for (const entry of sorted) {
    if (entry.seq <= version) continue;
    if (entry.seq > version + 1) {
      gap = true;
      break;
    }
    try {
      confirmed = model.apply(confirmed, entry.op);
    } catch {
      invalid.push(entry);
    }
    version = entry.seq;
    if (inflight && entry.batchId === inflight.batchId) {
      if (version === inflight.base + inflight.ops.length) inflight = null;
    } else {
      foreign = true;
      if (inflight) {
        pending = [...inflight.ops, ...pending];
        inflight = null;
      }
    }
  }
  const next = { ...state, confirmed, version, inflight, pending };
  if (!foreign) return { state: next, gap, dropped: [], invalid };
  const rebuilt = rebuild(model, next);
  return { state: rebuilt.state, gap, dropped: rebuilt.dropped, invalid };
}

/** local = confirmed + inflight + pending, dropping queued ops that no longer apply. */
function rebuild<D, O>(model: OpModel<D, O>, state: DocState<D, O>): { state: DocState<D, O>; dropped: O[] } {
  let base = state.confirmed;
  if (state.inflight) {
    // The inflight batch is on the wire as it is; only the queue behind it is rebased.
    base = applyEach(model, base, state.inflight.ops).doc;
  }
  const { doc, kept, dropped } = applyEach(model, base, state.pending);
  return { state: { ...state, pending: kept, local: doc }, dropped };
}

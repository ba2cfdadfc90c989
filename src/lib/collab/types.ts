/**
 * The collaboration core's vocabulary. It is generic over the document and its ops so
 * the protocol (optimistic apply, pending queue, append to a server-ordered log, rebase
 * on receipt, resync on a gap) is tested on its own; `chartroom.ts` binds it to the
 * statechart model in src/lib/model.
 */

/** How the core applies and inverts ops: pure, deterministic, never mutating `doc`. */
export interface OpModel<D, O> {
  /** The document after `op`; throws when `op` does not apply to `doc`. */
  apply(doc: D, op: O): D;
  /** The same as applying `ops` one by one, at the cost of one edit (a long paste); throws when any op does not apply. */
  applyAll?(doc: D, ops: readonly O[]): D;
  /** The ops that undo `op`, given the document `op` was applied to. */
  invert(before: D, op: O): O[];
  /**
   * The ops that undo a run of ops applied to `before` (each op's inverse, last op's first):
   * the same as `invert` and `apply` op by op, at the cost of one edit; throws what they throw.
   */
  invertAll?(before: D, ops: readonly O[]): O[];
  /**
   * How a logged op lands: as written, deterministically transformed (`applied` differs),
   * or as a no-op (`applied` empty, `error` says why). Without it an op that throws is a
   * no-op. Every client and the checkpoint replay use the same function.
   */
  resolve?(doc: D, op: O): { doc: D; applied: O[]; error: unknown };
  /** Words for a person whose op did not apply as written (`error` from apply/resolve). */
  explain?(op: O, error: unknown): string;
}

/** One of this person's ops that others' edits made inapplicable, and why in words. */
export interface DroppedOp<O> {
  op: O;
  reason: string;
}

/** One op as the log holds it (`machine_ops`): numbered, with who sent it in which batch. */
export interface CommittedOp<O> {
  seq: number;
  batchId: string;
  clientId: string;
  op: O;
}

/**
 * The batch this client has sent (or will resend, under the same id) to the server. The
 * server gives it the next seq numbers, whatever this client has seen: there is no base.
 */
export interface InflightBatch<O> {
  batchId: string;
  ops: O[];
  /** The server acknowledged it at these seqs, but ops before them have not reached us yet. */
  acked: { firstSeq: number; lastSeq: number } | null;
}

/**
 * A client's view of one document:
 * - `confirmed` at `version`: exactly what the log's ops 1..version produce;
 * - `inflight`: the batch sent to the server, answer not yet known;
 * - `pending`: edits made since, not sent;
 * - `local` = confirmed + inflight + pending: what this person sees and edits.
 */
export interface DocState<D, O> {
  confirmed: D;
  version: number;
  inflight: InflightBatch<O> | null;
  pending: O[];
  local: D;
  /**
   * Others' batches seen before the log confirmed them, in arrival order: shown on top of
   * `confirmed` (under this person's own ops) until their ops arrive from the log, or
   * forgotten (rolled back) when they never do. Absent: none.
   */
  remote?: readonly RemoteBatch<O>[];
  /** Ids of others' batches the log confirmed lately, so a late copy of one is not shown again. */
  recent?: readonly string[];
}

/** A batch another client sent to the server and, at once, to the machine's peers. */
export interface RemoteBatch<O> {
  batchId: string;
  clientId: string;
  /** Who sent it: checked against the server's stamp before it gets here. */
  userId: string;
  ops: O[];
}

/** What survives a reload: everything but `local` (recomputed) and others' unconfirmed batches. */
export type QueueSnapshot<D, O> = Omit<DocState<D, O>, 'local' | 'remote' | 'recent'>;

/** The server's answer to an append: the seq range the batch holds and the log's head. */
export interface CommitReceipt {
  firstSeq: number;
  lastSeq: number;
  /** The last seq in the log when the server answered (>= lastSeq). */
  version: number;
  /** The batch was already in the log (a retry after a lost answer). */
  duplicate: boolean;
  /** The log has grown well past the checkpoint: ask trusted code to move it. */
  checkpointDue?: boolean;
}

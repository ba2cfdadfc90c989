/**
 * The collaboration core's vocabulary. It is generic over the document and its ops so
 * the protocol (optimistic apply, pending queue, commit against a base version, rebase
 * on conflict, resync on a gap) is tested on its own; `chartroom.ts` binds it to the
 * statechart model in src/lib/model.
 */

/** How the core applies and inverts ops: pure, deterministic, never mutating `doc`. */
export interface OpModel<D, O> {
  /** The document after `op`; throws when `op` does not apply to `doc`. */
  apply(doc: D, op: O): D;
  /** The ops that undo `op`, given the document `op` was applied to. */
  invert(before: D, op: O): O[];
}

/** One op as the log holds it (`machine_ops`): numbered, with who sent it in which batch. */
export interface CommittedOp<O> {
  seq: number;
  batchId: string;
  clientId: string;
  op: O;
}

/** The batch this client has sent (or will resend) to the server. */
export interface InflightBatch<D, O> {
  batchId: string;
  /** The version the ops were applied to; the server commits them at base+1 ... base+n. */
  base: number;
  ops: O[];
  /** The document after applying `ops` to the confirmed document at `base`. */
  doc: D;
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
  inflight: InflightBatch<D, O> | null;
  pending: O[];
  local: D;
}

/** What survives a reload: everything but `local`, which is recomputed. */
export type QueueSnapshot<D, O> = Omit<DocState<D, O>, 'local'>;

/** The server's answer to a commit: the seq range the batch holds and the machine's version. */
export interface CommitReceipt {
  firstSeq: number;
  lastSeq: number;
  version: number;
  /** The batch was already in the log (a retry after a lost answer). */
  duplicate: boolean;
}

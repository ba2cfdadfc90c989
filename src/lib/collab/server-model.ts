import { resolveWith } from './rebase.ts';
import type { CommitReceipt, CommittedOp, OpModel } from './types.ts';

/**
 * commit_machine_ops (supabase/migrations/20261124000100_server_ordered_ops.sql) and the
 * checkpoint replay as pure functions, for simulations and property tests: a known batch
 * id answers with its original range and stores nothing; otherwise the ops are appended
 * with the next seq numbers, whatever the sender had seen. The server never applies ops
 * on append; `checkpoint` folds the log the way the trusted checkpoint code does.
 */
export interface ServerDoc<D, O> {
  /** The last checkpoint: the log's ops 1..checkpointSeq resolved onto the initial document. */
  doc: D;
  checkpointSeq: number;
  log: CommittedOp<O>[];
}

export type ServerAnswer = { ok: true; receipt: CommitReceipt };

export function headOf<D, O>(server: ServerDoc<D, O>): number {
  return server.log[server.log.length - 1]?.seq ?? server.checkpointSeq;
}

export function serverAppend<D, O>(
  server: ServerDoc<D, O>,
  request: { clientId: string; batchId: string; ops: O[] },
): { server: ServerDoc<D, O>; answer: ServerAnswer } {
  const head = headOf(server);
  const known = server.log.filter((entry) => entry.batchId === request.batchId);
  const first = known[0];
  const last = known[known.length - 1];
  if (first && last)
    return {
      server,
      answer: { ok: true, receipt: { firstSeq: first.seq, lastSeq: last.seq, version: head, duplicate: true } },
    };
  const appended = request.ops.map((op, i) => ({
    seq: head + i + 1,
    batchId: request.batchId,
    clientId: request.clientId,
    op,
  }));
  const version = head + request.ops.length;
  return {
    server: { ...server, log: [...server.log, ...appended] },
    answer: { ok: true, receipt: { firstSeq: head + 1, lastSeq: version, version, duplicate: false } },
  };
}

/** The checkpoint moved to the head: the ops after it resolved onto it, in seq order. */
export function checkpoint<D, O>(model: OpModel<D, O>, server: ServerDoc<D, O>): ServerDoc<D, O> {
  let doc = server.doc;
  for (const entry of opsSince(server, server.checkpointSeq)) doc = resolveWith(model, doc, entry.op).doc;
  return { ...server, doc, checkpointSeq: headOf(server) };
}

/** The log after `version`, as fetching `machine_ops` with `seq > version` returns it. */
export function opsSince<D, O>(server: ServerDoc<D, O>, version: number): CommittedOp<O>[] {
  return server.log.filter((entry) => entry.seq > version);
}

import type { CommitReceipt, CommittedOp } from './types.ts';

/**
 * commit_machine_ops (supabase/migrations/20261122001000_machines.sql) as a pure
 * function, for simulations and property tests: a known batch id answers with its
 * original range, a base other than the current version is refused, otherwise the ops
 * are appended with the next seq numbers and the sent document becomes the snapshot.
 */
export interface ServerDoc<D, O> {
  doc: D;
  version: number;
  log: CommittedOp<O>[];
}

export type ServerAnswer = { ok: true; receipt: CommitReceipt } | { ok: false; code: 'version_conflict'; currentVersion: number };

export function serverCommit<D, O>(
  server: ServerDoc<D, O>,
  request: { base: number; clientId: string; batchId: string; ops: O[]; doc: D },
): { server: ServerDoc<D, O>; answer: ServerAnswer } {
  const known = server.log.filter((entry) => entry.batchId === request.batchId);
  const first = known[0];
  const last = known[known.length - 1];
  if (first && last) {
    return { server, answer: { ok: true, receipt: { firstSeq: first.seq, lastSeq: last.seq, version: server.version, duplicate: true } } };
  }
  if (request.base !== server.version) return { server, answer: { ok: false, code: 'version_conflict', currentVersion: server.version } };
  const appended = request.ops.map((op, i) => ({ seq: server.version + i + 1, batchId: request.batchId, clientId: request.clientId, op }));
  const version = server.version + request.ops.length;
  return {
    server: { doc: request.doc, version, log: [...server.log, ...appended] },
    answer: { ok: true, receipt: { firstSeq: server.version + 1, lastSeq: version, version, duplicate: false } },
  };
}

/** The log after `version`, as fetching `machine_ops` with `seq > version` returns it. */
export function opsSince<D, O>(server: ServerDoc<D, O>, version: number): CommittedOp<O>[] {
  return server.log.filter((entry) => entry.seq > version);
}

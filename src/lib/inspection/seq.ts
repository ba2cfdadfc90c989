import type { StoredInspectionEvent } from './protocol.ts';

/**
 * A session's events by their seq (numbered 1, 2, 3 ... per source, so one session's seqs
 * may skip the numbers its source gave to its other sessions): the newest seq held, merging
 * reads and live batches in seq order with each seq once, and telling a batch that left
 * numbers unheard (a dropped or late broadcast) from one that follows on.
 */

export const lastSeq = (events: readonly StoredInspectionEvent[]): number => events[events.length - 1]?.seq ?? 0;

/**
 * The lists merged in seq order, each seq once (the first copy kept). When every later list
 * follows on the first (the usual case: live events after what is shown), the first list's
 * events keep their places and the rest are appended.
 */
export function mergeBySeq(
  base: readonly StoredInspectionEvent[],
  ...more: readonly (readonly StoredInspectionEvent[])[]
): StoredInspectionEvent[] {
  const extra = more.flat();
  if (extra.length === 0) return base as StoredInspectionEvent[];
  const bySeq = new Map<number, StoredInspectionEvent>();
  for (const e of extra) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
  const after = lastSeq(base);
  const tail = [...bySeq.values()].sort((x, y) => x.seq - y.seq);
  if (tail[0]!.seq > after) return [...base, ...tail];
  const known = new Set(base.map((e) => e.seq));
  return [...base, ...tail.filter((e) => !known.has(e.seq))].sort((x, y) => x.seq - y.seq);
}

/**
 * Whether a source's batch leaves numbers unheard: its first seq lies beyond the one after the
 * highest seq heard of that source (`heard`; 0 when nothing is known, and then nothing is judged).
 */
export function leavesGap(batch: readonly StoredInspectionEvent[], heard: number): boolean {
  const first = batch[0]?.seq;
  return first !== undefined && heard > 0 && first > heard + 1;
}

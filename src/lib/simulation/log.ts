import type { SimLogEntry } from './types.ts';

/**
 * A simulation's log as one client knows it: entries arrive from the stream in any
 * order, repeated, with holes when a message was missed. `known` holds what arrived,
 * by seq; `ready` is the gapless prefix 1..n that may be replayed. Pure: a new log is
 * returned, the old one is unchanged.
 */
export interface KnownLog {
  entries: ReadonlyMap<number, SimLogEntry>;
  /** Length of the gapless prefix. */
  ready: number;
}

export const emptyLog: KnownLog = { entries: new Map(), ready: 0 };

export function mergeEntries(log: KnownLog, incoming: readonly SimLogEntry[]): KnownLog {
  if (incoming.every((e) => log.entries.has(e.seq))) return log;
  const entries = new Map(log.entries);
  for (const e of incoming) if (Number.isInteger(e.seq) && e.seq > 0 && !entries.has(e.seq)) entries.set(e.seq, e);
  let ready = log.ready;
  while (entries.has(ready + 1)) ready++;
  return { entries, ready };
}

/** The gapless prefix in order. */
export function readyEntries(log: KnownLog, upTo = log.ready): SimLogEntry[] {
  const out: SimLogEntry[] = [];
  for (let seq = 1; seq <= Math.min(upTo, log.ready); seq++) out.push(log.entries.get(seq) as SimLogEntry);
  return out;
}

/** True when entries past a hole have arrived: something was missed, read the log again. */
export function hasGap(log: KnownLog): boolean {
  return log.entries.size > log.ready;
}

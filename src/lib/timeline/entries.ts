import type {
  EventEntry,
  JoinedEntry,
  SimulationEntry,
  SimulationMark,
  SimulationStart,
  TimelineEntry,
  TimelineKind,
} from './types.ts';

/** Simulations, their events and joins as timeline entries; merging, filtering and windowing them. */

const timeOf = (at: string): number => Date.parse(at) || 0;

export const simulationEntry = (s: SimulationStart): SimulationEntry => ({
  key: `sim:${s.id}`,
  kind: 'simulation',
  at: s.at,
  time: timeOf(s.at),
  person: s.createdBy,
  text: s.forkedFrom
    ? `forked a simulation (version ${s.machineVersion})`
    : `started a simulation (version ${s.machineVersion})`,
  simulationId: s.id,
});

export const eventEntry = (m: SimulationMark): EventEntry => ({
  key: `ev:${m.simulationId}:${m.seq}`,
  kind: 'event',
  at: m.at,
  time: timeOf(m.at),
  person: m.sender,
  text: m.kind === 'time' ? 'advanced time' : `sent ${m.type ?? 'an event'}`,
  simulationId: m.simulationId,
  seq: m.seq,
});

export const joinedEntry = (userId: string, at: string, n: number): JoinedEntry => ({
  key: `join:${userId}:${n}`,
  kind: 'joined',
  at,
  time: timeOf(at),
  person: userId,
  text: 'joined',
});

const before = (a: TimelineEntry, b: TimelineEntry): boolean => a.time < b.time || (a.time === b.time && a.key < b.key);

/**
 * `list` (in order) with `added` put in place; entries whose key is already there are
 * dropped, so a repeat delivery changes nothing. New entries mostly land at the end.
 */
export function insertEntries(list: readonly TimelineEntry[], added: readonly TimelineEntry[]): TimelineEntry[] {
  const keys = new Set(list.map((e) => e.key));
  const fresh = added.filter((e) => !keys.has(e.key) && keys.add(e.key) !== undefined);
  if (fresh.length === 0) return list as TimelineEntry[];
  fresh.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  return mergeSorted(list, fresh);
}

/** Two ordered lists as one ordered list. */
export function mergeSorted(a: readonly TimelineEntry[], b: readonly TimelineEntry[]): TimelineEntry[] {
  if (b.length === 0) return a as TimelineEntry[];
  if (a.length === 0) return b as TimelineEntry[];
  const out = new Array<TimelineEntry>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = before(b[j]!, a[i]!) ? b[j++]! : a[i++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

export interface TimelineFilter {
  /** The kinds shown; all when empty. */
  kinds: readonly TimelineKind[];
  /** Only this person's entries, or everyone's when null. */
  person: string | null;
}

export const NO_FILTER: TimelineFilter = { kinds: [], person: null };

export function filterEntries(entries: readonly TimelineEntry[], filter: TimelineFilter): readonly TimelineEntry[] {
  if (filter.kinds.length === 0 && filter.person === null) return entries;
  const kinds = new Set(filter.kinds);
  return entries.filter(
    (e) => (kinds.size === 0 || kinds.has(e.kind)) && (filter.person === null || e.person === filter.person),
  );
}

/** The people who appear in the entries (for the person filter), in order of first appearance. */
export function peopleIn(entries: readonly TimelineEntry[]): string[] {
  const seen = new Set<string>();
  for (const e of entries) if (e.person !== null) seen.add(e.person);
  return [...seen];
}

/**
 * Which rows of a fixed-height list to render: rows `start` (inclusive) to `end`
 * (exclusive) cover the viewport plus `overscan` rows either side; `offset` is where
 * row `start` sits (px from the top).
 */
export function windowOf(
  count: number,
  rowHeight: number,
  scrollTop: number,
  viewportHeight: number,
  overscan = 8,
): { start: number; end: number; offset: number } {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(count - 1, first) - overscan);
  const end = Math.min(count, first + visible + overscan);
  return { start, end, offset: start * rowHeight };
}

import type { CommentAnchor, CommentThread } from '../ports/comments.ts';
import type { EditEntry, EventEntry, TimelineEntry } from '../timeline/types.ts';

/**
 * Threads on the machine's history: a timeline entry (an edit batch, named by the seq of
 * its first op: `timeline` "42") and a simulation step (a run's event: `step`
 * "<run id>:3"). Which anchor an entry gives, which entry an anchor names (a seq inside a
 * batch names that batch), what the Comments panel calls it, and how many threads each
 * entry carries (its marker).
 */

/** The anchor a thread started from this entry hangs on: an edit or a step; null for other kinds. */
export function anchorOfEntry(entry: TimelineEntry): CommentAnchor | null {
  if (entry.kind === 'edit') return { kind: 'timeline', value: String(entry.firstSeq) };
  if (entry.kind === 'event') return { kind: 'step', value: `${entry.simulationId}:${entry.seq}` };
  return null;
}

/** A step anchor's run and step, or null when it is not `<run id>:<step>`. */
export function stepOf(value: string): { simulationId: string; step: number } | null {
  const m = /^(.+):([1-9]\d*)$/.exec(value);
  return m ? { simulationId: m[1] as string, step: Number(m[2]) } : null;
}

function entryOf(entries: readonly TimelineEntry[], anchor: CommentAnchor): EditEntry | EventEntry | null {
  if (anchor.kind === 'timeline') {
    const seq = Number(anchor.value);
    return entries.find((e): e is EditEntry => e.kind === 'edit' && e.firstSeq <= seq && seq <= e.lastSeq) ?? null;
  }
  if (anchor.kind === 'step') {
    const key = `ev:${anchor.value}`;
    return entries.find((e): e is EventEntry => e.kind === 'event' && e.key === key) ?? null;
  }
  return null;
}

/** The key of the timeline entry an anchor names, or null (not a history anchor, or not read yet). */
export const entryKeyOf = (entries: readonly TimelineEntry[], anchor: CommentAnchor): string | null =>
  entryOf(entries, anchor)?.key ?? null;

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * What the panel says a history anchor is: "edit #42 by Ada: renamed paying", "step 3 of
 * the run Bo started at 14:02: sent PAY"; the bare seq or step while the timeline has not
 * read that far.
 */
export function historyLabel(
  entries: readonly TimelineEntry[],
  anchor: CommentAnchor,
  nameOf: (userId: string | null) => string,
): string {
  const entry = entryOf(entries, anchor);
  if (anchor.kind === 'timeline')
    return entry ? `edit #${anchor.value} by ${nameOf(entry.person)}: ${entry.text}` : `edit #${anchor.value}`;
  const step = stepOf(anchor.value);
  if (!step) return `a step (${anchor.value})`;
  const run = entries.find((e) => e.kind === 'simulation' && e.simulationId === step.simulationId);
  const of = run ? `the run ${nameOf(run.person)} started at ${clock.format(run.time)}` : 'a run';
  return `step ${step.step} of ${of}${entry ? `: ${entry.text}` : ''}`;
}

/** A marker: how many threads hang on one entry or step, and the first of them (the marker brings it forward). */
export interface ThreadMark {
  count: number;
  first: string;
}

function marksBy<K>(threads: readonly CommentThread[], keyOf: (anchor: CommentAnchor) => K | null): Map<K, ThreadMark> {
  const marks = new Map<K, ThreadMark>();
  for (const t of threads) {
    const key = keyOf(t.anchor);
    if (key === null) continue;
    const had = marks.get(key);
    marks.set(key, had ? { count: had.count + 1, first: had.first } : { count: 1, first: t.id });
  }
  return marks;
}

/** Threads per timeline entry (by entry key), for each entry's marker. */
export const threadsByEntry = (
  threads: readonly CommentThread[],
  entries: readonly TimelineEntry[],
): Map<string, ThreadMark> => marksBy(threads, (anchor) => entryKeyOf(entries, anchor));

/** Threads per step of one run (by step), for the Simulation log's markers. */
export const threadsByStep = (threads: readonly CommentThread[], simulationId: string): Map<number, ThreadMark> =>
  marksBy(threads, (anchor) => {
    const at = anchor.kind === 'step' ? stepOf(anchor.value) : null;
    return at && at.simulationId === simulationId ? at.step : null;
  });

import { eventOptions, type EventOption } from './events.ts';
import type { Trace } from './replay.ts';
import { MemoWalker } from './memo.ts';
import type { GuardValues, SimLogEntry, SimSetup } from './types.ts';

/**
 * Traces that grow as a log arrives. `traceOf(setup, entries, previous)` equals
 * `replay(setup, entries)`; when `previous` is the trace of a prefix of `entries` it is
 * extended instead of recomputed, from the simulator left at its end (kept here, off the
 * data, so a trace stays plain and comparable). Logs only grow, so a prefix's steps
 * never change.
 */
const heads = new WeakMap<Trace, { setup: SimSetup; sim: MemoWalker }>();

function headOf(setup: SimSetup, trace: Trace, entries: readonly SimLogEntry[]): MemoWalker {
  const kept = heads.get(trace);
  const done = trace.steps.length - 1;
  if (kept && kept.setup === setup && kept.sim.seq === done) return kept.sim;
  const sim = new MemoWalker(setup);
  for (const e of entries.slice(0, done)) sim.apply(e);
  return sim;
}

export function traceOf(setup: SimSetup, entries: readonly SimLogEntry[], previous: Trace | null = null): Trace {
  const reusable =
    previous !== null && previous.steps.length - 1 <= entries.length && heads.get(previous)?.setup === setup;
  if (!reusable) {
    const sim = new MemoWalker(setup);
    const steps = [sim.start()];
    for (const e of entries) steps.push(sim.apply(e));
    const trace = { steps };
    heads.set(trace, { setup, sim });
    return trace;
  }
  const sim = headOf(setup, previous, entries);
  heads.delete(previous);
  const steps = previous.steps.slice();
  for (const e of entries.slice(previous.steps.length - 1)) steps.push(sim.apply(e));
  const trace = { steps };
  heads.set(trace, { setup, sim });
  return trace;
}

/** The events offered at the end of a trace, enabled or not under `guards`. */
export function optionsAtEnd(
  setup: SimSetup,
  trace: Trace,
  entries: readonly SimLogEntry[],
  guards: GuardValues,
): EventOption[] {
  const sim = headOf(setup, trace, entries);
  heads.set(trace, { setup, sim });
  return eventOptions(sim.simulator(), guards);
}

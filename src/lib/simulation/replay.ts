import type { MachineDefinition } from '../model/types.ts';
import { MemoWalker } from './memo.ts';
import type { SimLogEntry, SimSetup, SimStep } from './types.ts';

/**
 * The whole run of a log: `steps[0]` is the start, `steps[i]` the state after entry i.
 * The state is a pure function of (setup, entries): the same inputs give the same
 * steps on every client, whatever order the entries arrived in (log.ts orders them).
 * Both replays walk memo.ts's graph: each (state, entry) pair runs on the actor once.
 */
export interface Trace {
  steps: SimStep[];
}

export function replay(setup: SimSetup, entries: readonly SimLogEntry[]): Trace {
  const sim = new MemoWalker(setup);
  const steps = [sim.start()];
  for (const e of entries) steps.push(sim.apply(e));
  sim.stop();
  return { steps };
}

/**
 * A replay that keeps only the last state: the fast path to "the state now". Its
 * `actions` are left empty (no step is described); use `replay` for them.
 */
export function replayToState(setup: SimSetup, entries: readonly SimLogEntry[]): SimStep {
  const sim = new MemoWalker(setup);
  const first = sim.start();
  let ignored: SimStep['ignored'] = null;
  for (const e of entries) ignored = sim.advance(e);
  const last: SimStep = entries.length === 0 ? first : { seq: sim.seq, ignored, actions: [], ...sim.view() };
  sim.stop();
  return last;
}

/** One entry of a re-run on a new version: did it still apply? */
export interface RerunMark {
  seq: number;
  /** Applied on the old version but ignored on the new one. */
  noLongerApplies: boolean;
  ignored: SimStep['ignored'];
}

/** A re-run's answer: the marks and the new trace, or why XState refused the new version. */
export type Rerun = { ok: true; marks: RerunMark[]; trace: Trace } | { ok: false; refused: string };

/**
 * The same events on a new version of the machine: each entry marked with whether it
 * still applies. `noLongerApplies` is set for entries that did something before and
 * are ignored now; the new trace is returned too, for showing the re-run. A version
 * XState refuses to build (a compound whose initial state has not arrived yet, midway
 * through a peer's big paste) is an answer too, `refused` with XState's reason, never a
 * throw: the simulation panel asks this on every change and must not fail with it.
 */
export function rerunOnDefinition(setup: SimSetup, entries: readonly SimLogEntry[], next: MachineDefinition): Rerun {
  let before: Trace;
  let trace: Trace;
  try {
    before = replay(setup, entries);
    trace = replay({ ...setup, definition: next }, entries);
  } catch (error) {
    return { ok: false, refused: error instanceof Error ? error.message : String(error) };
  }
  const marks = entries.map((e, i) => {
    const was = before.steps[i + 1];
    const now = trace.steps[i + 1];
    return {
      seq: e.seq,
      ignored: now?.ignored ?? null,
      noLongerApplies: was?.ignored === null && now?.ignored !== null,
    };
  });
  return { ok: true, marks, trace };
}

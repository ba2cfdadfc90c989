import type { JsonObject, MachineDefinition } from '../model/types.ts';
import { sameJson } from '../simulation/json.ts';
import { replay } from '../simulation/replay.ts';
import { Simulator } from '../simulation/simulator.ts';
import type { SimLogEntry, SimSetup } from '../simulation/types.ts';
import { statePaths } from './paths.ts';
import type { TestOutcome, TestScript, TestStep } from './types.ts';
import { configurationWords, eventWords } from './words.ts';

/**
 * Running a saved test: its steps become simulation log entries and are replayed on the
 * definition by the simulation's own interpreter (src/lib/simulation), so a test, a path
 * and a simulation agree on what an event does. The first step whose active states (or
 * context subset) differ from the expectation fails the run; an expectation naming a
 * state the machine no longer has fails it as stale, never throws.
 */

export function toEntries(steps: readonly TestStep[]): SimLogEntry[] {
  return steps.map((s, i) => ({
    seq: i + 1,
    kind: s.kind,
    type: s.kind === 'time' ? null : s.type,
    payload: s.payload,
    guards: s.guards,
    sender: null,
  }));
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

function contextHolds(context: unknown, subset: JsonObject | undefined): boolean {
  if (!subset) return true;
  if (typeof context !== 'object' || context === null) return false;
  const c = context as Record<string, unknown>;
  return Object.entries(subset).every(([k, v]) => Object.hasOwn(c, k) && sameJson(c[k], v));
}

export function runTest(def: MachineDefinition, script: TestScript, context: JsonObject | null = null): TestOutcome {
  const known = new Set(statePaths(def));
  const expectations = [script.start, ...script.steps.map((s) => s.expect)];
  for (const [i, expect] of expectations.entries()) {
    const missing = expect.find((p) => !known.has(p));
    if (missing !== undefined)
      return { status: 'fail', step: i, message: `state "${missing}" no longer exists`, missingState: true };
  }
  let sim: Simulator | null = null;
  try {
    sim = new Simulator({ definition: def, context, guards: {} });
    const first = sim.start();
    if (!sameSet(first.activePaths, script.start))
      return {
        status: 'fail',
        step: 0,
        message: `starts in ${configurationWords(first.activePaths)}, expected ${configurationWords(script.start)}`,
        missingState: false,
      };
    const entries = toEntries(script.steps);
    for (const [i, step] of script.steps.entries()) {
      const now = sim.apply(entries[i] as SimLogEntry);
      const ok = sameSet(now.activePaths, step.expect) && contextHolds(now.context, step.expectContext);
      if (!ok) {
        const what = now.ignored === 'not_enabled' ? `${eventWords(step)} did nothing` : `${eventWords(step)}`;
        const got = sameSet(now.activePaths, step.expect)
          ? 'the context differs'
          : `in ${configurationWords(now.activePaths)}, expected ${configurationWords(step.expect)}`;
        return { status: 'fail', step: i + 1, message: `step ${i + 1}: after ${what}, ${got}`, missingState: false };
      }
    }
    return { status: 'pass', steps: script.steps.length };
  } catch (error) {
    return {
      status: 'fail',
      step: 0,
      message: `the machine cannot run: ${error instanceof Error ? error.message : String(error)}`,
      missingState: false,
    };
  } finally {
    sim?.stop();
  }
}

/** A simulation's log as a test: each entry that did something, with the states it led to. */
export function scriptFromSimulation(setup: SimSetup, entries: readonly SimLogEntry[]): TestScript {
  const trace = replay(setup, entries);
  const steps: TestStep[] = [];
  entries.forEach((e, i) => {
    const after = trace.steps[i + 1];
    if (!after || after.ignored !== null) return;
    steps.push({ kind: e.kind, type: e.type, payload: e.payload, guards: e.guards, expect: after.activePaths });
  });
  return { start: trace.steps[0]?.activePaths ?? [], steps };
}

import type { MachineDefinition } from '../model/types.ts';
import type { PlayShown } from '../ports/test-playback.ts';
import { MAX_PLAYED_STEPS } from '../ports/test-playback.ts';
import type { SavedTest, TestRun } from '../ports/machine-tests.ts';
import { staleness, type Staleness } from './staleness.ts';
import type { TestPath, TestScript } from './types.ts';

/**
 * The Tests panel's pure steps over what its machine holds (machines/open-machine/tests.machine.ts):
 * which saved tests are stale on this version, what is played (a generated path or a
 * saved test, at the step shown) and which states that step shows.
 */

/** Each saved test's staleness on this version, by test id (src/lib/testing/staleness.ts). */
export function stalenessOf(
  definition: MachineDefinition | null,
  version: number,
  tests: readonly SavedTest[],
  runs: Readonly<Record<string, TestRun>>,
): Record<string, Staleness> {
  const out: Record<string, Staleness> = {};
  if (!definition) return out;
  for (const t of tests) out[t.id] = staleness(definition, version, t, runs[t.id] ?? null);
  return out;
}

const scriptOf = (p: TestPath): TestScript => ({ start: p.start, steps: p.steps });

/** The selected path or saved test as a play (its words or name, its script, the step shown), or null. */
export function playOf(
  selected: string | null,
  step: number,
  paths: readonly TestPath[],
  tests: readonly SavedTest[],
): PlayShown | null {
  if (selected === null) return null;
  const path = paths.find((p) => p.id === selected);
  const test = path ? undefined : tests.find((t) => t.id === selected);
  const script = path ? scriptOf(path) : test?.script;
  if (!script) return null;
  return { title: path?.words ?? test?.name ?? '', script, step: Math.min(step, script.steps.length) };
}

/** What goes to the room: a play too long to broadcast plays only here. */
export const sharedPlay = (play: PlayShown | null): PlayShown | null =>
  play && play.script.steps.length <= MAX_PLAYED_STEPS ? play : null;

/** The same play (script, title and step): nothing new to tell the room. */
export const samePlay = (a: PlayShown | null, b: PlayShown | null): boolean =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.script.start === b.script.start &&
    a.script.steps === b.script.steps &&
    a.title === b.title &&
    a.step === b.step);

/** The states a script shows at a step: the start at 0, else the expectation after the step. */
export const statesAt = (script: TestScript, step: number): string[] =>
  step === 0 ? script.start : (script.steps[step - 1]?.expect ?? []);

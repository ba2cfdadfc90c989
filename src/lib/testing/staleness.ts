import type { JsonObject, MachineDefinition } from '../model/types.ts';
import { runTest } from './run.ts';
import type { TestOutcome, TestScript } from './types.ts';

/**
 * When a saved test is Stale: only when an edit touched what it depends on, not on every
 * new version. What a test depends on is the states its expectations name and the
 * transitions its steps take; an edit touched them when, replayed on the current
 * version, the test no longer gives the result it last gave (a named state is gone or
 * renamed, a step now goes elsewhere or does nothing). An edit anywhere else leaves it
 * fresh. Never throws: a test that cannot run on this version is stale, with the reason.
 */

export interface StaleTest {
  script: TestScript;
  context: JsonObject | null;
  /** The version it was saved at. */
  machineVersion: number;
}

/** The newest recorded run: its version and result (null when the test never ran). */
export interface LastResult {
  machineVersion: number;
  status: 'pass' | 'fail';
  failedStep: number | null;
}

export type Staleness = { stale: false } | { stale: true; reason: string; missingState: boolean };

const sameResult = (outcome: TestOutcome, last: Pick<LastResult, 'status' | 'failedStep'>): boolean =>
  outcome.status === last.status && (outcome.status === 'pass' || outcome.step === last.failedStep);

export function staleness(
  def: MachineDefinition,
  version: number,
  test: StaleTest,
  last: LastResult | null = null,
): Staleness {
  const since = last?.machineVersion ?? test.machineVersion;
  if (since === version) return { stale: false };
  let outcome: TestOutcome;
  try {
    outcome = runTest(def, test.script, test.context);
  } catch (error) {
    return { stale: true, reason: error instanceof Error ? error.message : String(error), missingState: false };
  }
  // A saved test passed when it was saved; a run recorded what it gave then.
  if (sameResult(outcome, last ?? { status: 'pass', failedStep: null })) return { stale: false };
  if (outcome.status === 'pass') return { stale: true, reason: 'passes on this version', missingState: false };
  return { stale: true, reason: outcome.message, missingState: outcome.missingState };
}

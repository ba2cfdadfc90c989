import type { JsonObject } from '../model/types.ts';
import type { SimLogEntry } from '../simulation/types.ts';
import type { CoverageRun } from './coverage.ts';
import { toEntries } from './run.ts';
import type { TestScript } from './types.ts';

/**
 * What coverage counts: the saved tests (their steps as log entries) and the room's
 * recorded simulations (their logs as stored), each one run from the start on the
 * current version. A simulation's first switch values hold until an entry says
 * otherwise, as in the simulation panel.
 */

export interface RecordedSimulation {
  id: string;
  context: JsonObject | null;
  entries: readonly SimLogEntry[];
}

export interface CoverageSources {
  runs: CoverageRun[];
  simulations: number;
  tests: number;
}

export function coverageSources(
  tests: readonly { script: TestScript; context: JsonObject | null }[],
  simulations: readonly RecordedSimulation[] = [],
): CoverageSources {
  const withEvents = simulations.filter((s) => s.entries.length > 0);
  return {
    runs: [
      ...withEvents.map((s) => ({ context: s.context, entries: s.entries })),
      ...tests.map((t) => ({ context: t.context, entries: toEntries(t.script.steps) })),
    ],
    simulations: withEvents.length,
    tests: tests.length,
  };
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "from 3 simulations and 2 test runs"; "from nothing yet" when there is nothing to count. */
export function sourcesWords(s: Pick<CoverageSources, 'simulations' | 'tests'>): string {
  const parts: string[] = [];
  if (s.simulations > 0) parts.push(count(s.simulations, 'simulation', 'simulations'));
  if (s.tests > 0) parts.push(count(s.tests, 'test run', 'test runs'));
  return parts.length === 0 ? 'from nothing yet' : `from ${parts.join(' and ')}`;
}

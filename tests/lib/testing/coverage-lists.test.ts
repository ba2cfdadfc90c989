import { describe, expect, it } from 'vitest';
import type { SimLogEntry } from '../../../src/lib/simulation/index.ts';
import {
  computeCoverage,
  coverageFigures,
  coverageSources,
  shortestPaths,
  sourcesWords,
  untestedGuards,
  untestedTransitions,
} from '../../../src/lib/testing/index.ts';
import { def, payment } from './charts.ts';

/** Coverage in the panel: what it counted, and what is left untested, in words. */

const entry = (seq: number, type: string, guards = {}): SimLogEntry => ({
  seq,
  kind: 'event',
  type,
  payload: {},
  guards,
  sender: null,
});

describe('coverage sources', () => {
  it('counts recorded simulations and saved tests, and says so', () => {
    const d = def(payment);
    const paid = shortestPaths(d).paths.find((p) => p.target === 'paid');
    if (!paid) throw new Error('no path to paid');
    const tests = [{ script: { start: paid.start, steps: paid.steps }, context: null }];
    const declined = { id: 's1', context: null, entries: [entry(1, 'PAY', { hasCard: false })] };
    const empty = { id: 's2', context: null, entries: [] };
    const sources = coverageSources(tests, [declined, empty]);
    expect(sourcesWords(sources)).toBe('from 1 simulation and 1 test run');
    expect(sourcesWords({ simulations: 3, tests: 2 })).toBe('from 3 simulations and 2 test runs');
    expect(sourcesWords({ simulations: 0, tests: 0 })).toBe('from nothing yet');
    // The simulation's PAY with no card counts: every state but the retry's target is reached once.
    const c = computeCoverage(d, sources.runs);
    expect([...c.states.covered].sort()).toEqual(['declined', 'idle', 'paid', 'paying']);
    expect(coverageFigures(computeCoverage(d, coverageSources(tests).runs)).states).toBe(75);
  });
});

describe('untested lists', () => {
  it('lists untaken transitions as event, source → target, and unmet guard outcomes', () => {
    const d = def(payment);
    const c = computeCoverage(d, [
      { context: null, entries: [entry(1, 'PAY', { hasCard: true }), entry(2, 'SUCCESS')] },
    ]);
    expect(untestedTransitions(d, c).map((t) => t.words)).toEqual(['PAY: idle → declined', 'RETRY: declined → idle']);
    const guards = untestedGuards(d, c);
    expect(guards.map((g) => [g.words, g.value])).toEqual([['`hasCard` is false', false]]);
    // Clicking it selects the transition the guard is on.
    expect(guards[0]?.transitions.map((id) => d.transitions[id]?.guard?.type)).toEqual(['hasCard']);
    const covered = computeCoverage(d, [
      {
        context: null,
        entries: [entry(1, 'PAY', { hasCard: false }), entry(2, 'RETRY'), entry(3, 'PAY', { hasCard: true })],
      },
      { context: null, entries: [entry(1, 'PAY', { hasCard: true }), entry(2, 'SUCCESS')] },
    ]);
    expect(untestedTransitions(d, covered)).toEqual([]);
    expect(untestedGuards(d, covered)).toEqual([]);
  });
});

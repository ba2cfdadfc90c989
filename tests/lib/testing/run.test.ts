import { describe, expect, it } from 'vitest';
import type { SimLogEntry } from '../../../src/lib/simulation/index.ts';
import {
  computeCoverage,
  coverageFigures,
  runTest,
  scriptFromSimulation,
  shortestPaths,
} from '../../../src/lib/testing/index.ts';
import { def, payment } from './charts.ts';

/** Saved tests and coverage: runs, staleness and coverage by recorded runs. */

const entry = (seq: number, type: string | null, guards = {}): SimLogEntry => ({
  seq,
  kind: type === null ? 'time' : 'event',
  type,
  payload: {},
  guards,
  sender: null,
});

const paid = () => {
  const path = shortestPaths(def(payment)).paths.find((p) => p.target === 'paid');
  if (!path) throw new Error('no path to paid');
  return path;
};

describe('running a saved test', () => {
  it('passes on the machine it was made from', () => {
    expect(runTest(def(payment), paid())).toEqual({ status: 'pass', steps: 2 });
  });

  it('says which step breaks after an edit', () => {
    const edited = def({
      ...payment,
      states: { ...(payment.states as object), paying: { on: { SUCCESS: 'declined' } } },
    });
    expect(runTest(edited, paid())).toEqual({
      status: 'fail',
      step: 2,
      message: 'step 2: after SUCCESS, in declined, expected paid',
      missingState: false,
    });
  });

  it('reports a state that no longer exists as stale, without running', () => {
    const states = { ...(payment.states as Record<string, unknown>) };
    delete states.paid;
    const edited = def({ ...payment, states: { ...states, paying: {} } });
    expect(runTest(edited, paid())).toMatchObject({ status: 'fail', step: 2, missingState: true });
  });

  it('turns a simulation log into a test, dropping what did nothing', () => {
    const d = def(payment);
    const log = [entry(1, 'SUCCESS'), entry(2, 'PAY', { hasCard: true }), entry(3, 'SUCCESS')];
    const script = scriptFromSimulation({ definition: d, context: null, guards: {} }, log);
    expect(script.start).toEqual(['idle']);
    expect(script.steps.map((s) => [s.type, s.expect])).toEqual([
      ['PAY', ['paying']],
      ['SUCCESS', ['paid']],
    ]);
    expect(runTest(d, script)).toEqual({ status: 'pass', steps: 2 });
  });
});

describe('coverage', () => {
  it('counts states, transitions and guard outcomes reached by recorded runs', () => {
    const d = def(payment);
    const c = computeCoverage(d, [
      { context: null, entries: [entry(1, 'PAY', { hasCard: true }), entry(2, 'SUCCESS')] },
    ]);
    expect([...c.states.covered].sort()).toEqual(['idle', 'paid', 'paying']);
    expect(c.guards.covered).toEqual(new Set(['hasCard=true']));
    // PAY/hasCard and SUCCESS taken; PAY's fallback and RETRY not.
    expect(c.transitions.covered.size).toBe(2);
    expect(coverageFigures(c)).toEqual({ states: 75, transitions: 50, guards: 50 });
    const more = computeCoverage(d, [
      { context: null, entries: [entry(1, 'PAY', { hasCard: true }), entry(2, 'SUCCESS')] },
      { context: null, entries: [entry(1, 'PAY', { hasCard: false }), entry(2, 'RETRY')] },
    ]);
    expect(coverageFigures(more)).toEqual({ states: 100, transitions: 100, guards: 100 });
  });
});

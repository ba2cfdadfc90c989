import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/lib/model/index.ts';
import { shortestPaths, staleness, type StaleTest } from '../../../src/lib/testing/index.ts';
import { def, payment } from './charts.ts';

/** Edits turn tests stale: only an edit to what a test depends on makes it Stale. */

const states = payment.states as Record<string, JsonObject>;
const withStates = (changes: Record<string, JsonObject | null>) => {
  const next: Record<string, JsonObject> = { ...states };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  return def({ ...payment, states: next });
};

/** "start in idle → PAY (hasCard true) → paying → SUCCESS → paid", saved at version 1. */
const paidTest = (): StaleTest => {
  const path = shortestPaths(def(payment)).paths.find((p) => p.target === 'paid');
  if (!path) throw new Error('no path to paid');
  return { script: { start: path.start, steps: path.steps }, context: null, machineVersion: 1 };
};

describe('staleness', () => {
  it('is never stale at the version it was saved or last run at', () => {
    expect(staleness(withStates({ paying: {}, paid: null }), 1, paidTest())).toEqual({ stale: false });
    const last = { machineVersion: 4, status: 'pass' as const, failedStep: null };
    expect(staleness(withStates({ paying: {}, paid: null }), 4, paidTest(), last)).toEqual({ stale: false });
  });

  it('stays fresh after edits to what the test does not use', () => {
    const test = paidTest();
    // A new state, a new event on a state the path passes, actions on its transitions, the unused RETRY moved.
    expect(staleness(withStates({ audit: {} }), 2, test)).toEqual({ stale: false });
    expect(staleness(withStates({ paying: { on: { SUCCESS: 'paid', CANCEL: 'idle' } } }), 3, test)).toEqual({
      stale: false,
    });
    expect(staleness(withStates({ paying: { on: { SUCCESS: { target: 'paid', actions: 'log' } } } }), 4, test)).toEqual(
      {
        stale: false,
      },
    );
    expect(staleness(withStates({ declined: { on: { RETRY: 'paying' } } }), 5, test)).toEqual({ stale: false });
  });

  it('turns stale when a state its expectations name is renamed or gone', () => {
    const renamed = withStates({ paid: null, settled: { type: 'final' }, paying: { on: { SUCCESS: 'settled' } } });
    expect(staleness(renamed, 2, paidTest())).toEqual({
      stale: true,
      reason: 'state "paid" no longer exists',
      missingState: true,
    });
  });

  it('turns stale when a transition on its path changed, saying which step breaks', () => {
    expect(staleness(withStates({ paying: { on: { SUCCESS: 'declined' } } }), 2, paidTest())).toEqual({
      stale: true,
      reason: 'step 2: after SUCCESS, in declined, expected paid',
      missingState: false,
    });
    // The guard on PAY renamed: the recorded switch names the old guard, so PAY now declines.
    const guard = withStates({
      idle: { on: { PAY: [{ guard: 'hasMoney', target: 'paying' }, { target: 'declined' }] } },
    });
    expect(staleness(guard, 2, paidTest())).toMatchObject({ stale: true, missingState: false });
  });

  it('compares with the last recorded result: a failing test that now passes is stale, one that fails alike is not', () => {
    const broken = withStates({ paying: { on: { SUCCESS: 'declined' } } });
    const failed = { machineVersion: 2, status: 'fail' as const, failedStep: 2 };
    expect(staleness(broken, 3, paidTest(), failed)).toEqual({ stale: false });
    expect(staleness(def(payment), 3, paidTest(), failed)).toEqual({
      stale: true,
      reason: 'passes on this version',
      missingState: false,
    });
  });

  it('never throws on a test whose script is not a script', () => {
    const junk = {
      script: { start: ['idle'], steps: [null] },
      context: null,
      machineVersion: 1,
    } as unknown as StaleTest;
    expect(staleness(def(payment), 2, junk)).toMatchObject({ stale: true });
  });
});

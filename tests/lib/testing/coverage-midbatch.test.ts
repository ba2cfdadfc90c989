import { describe, expect, it } from 'vitest';
import { applyOps } from '../../../src/lib/model/index.ts';
import { computeCoverage } from '../../../src/lib/testing/index.ts';
import { def, payment } from './charts.ts';

/**
 * A peer receives a pasted chart in batches: for a while a compound state has children but
 * no initial state yet, which XState refuses to build. The Tests panel (mounted even when
 * closed) computes coverage on every definition; that threw inside React's render and
 * blanked the whole machine page at the peer (the 1,000-state bench never saw B
 * draw anything).
 */
describe('coverage of a definition XState refuses', () => {
  const d = def(payment);
  const idle = Object.values(d.states).find((s) => s.key === 'idle');
  if (!idle) throw new Error('no idle state');
  // idle becomes a compound with a child and no initial state: valid in the model, refused by XState.
  const midBatch = applyOps(d, [
    { type: 'state.add', id: 'inner', parent: idle.id, key: 'inner', stateType: 'atomic', index: null },
    { type: 'state.setType', id: idle.id, stateType: 'compound' },
  ]);

  it('is empty coverage, not a throw, with or without runs', () => {
    const entries = [{ seq: 1, kind: 'event' as const, type: 'PAY', payload: {}, guards: {}, sender: null }];
    for (const runs of [[], [{ context: null, entries }]]) {
      const c = computeCoverage(midBatch, runs);
      expect(c.states.covered.size).toBe(0);
      expect(c.transitions.covered.size).toBe(0);
      expect(c.states.all.length).toBeGreaterThan(0);
    }
  });

  it('still covers what runs reach once the definition builds', () => {
    const entries = [
      { seq: 1, kind: 'event' as const, type: 'PAY', payload: {}, guards: { hasCard: true }, sender: null },
    ];
    expect(computeCoverage(d, [{ context: null, entries }]).states.covered.size).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { applyOps } from '../../../src/lib/model/index.ts';
import { rerunOnDefinition } from '../../../src/lib/simulation/index.ts';
import { checkout, def, logOf, setupOf } from './fixtures.ts';

/**
 * A peer receives a pasted chart in batches: for a while a compound state has children but
 * no initial state yet, which XState refuses to build. The Simulation panel re-runs the
 * open simulation's log on every new definition (to say which events no longer apply);
 * that threw inside React's render at the peer. It is an answer now.
 */
describe('re-run on a version XState refuses', () => {
  const setup = setupOf(checkout);
  const log = logOf([{ type: 'CHECKOUT', guards: { hasItems: true } }, 'SWITCH']);
  const browsing = Object.values(setup.definition.states).find((s) => s.key === 'browsing');
  if (!browsing) throw new Error('no browsing state');
  // browsing becomes a compound with a child and no initial state: valid in the model, refused by XState.
  const midBatch = applyOps(setup.definition, [
    { type: 'state.add', id: 'inner', parent: browsing.id, key: 'inner', stateType: 'atomic', index: null },
    { type: 'state.setType', id: browsing.id, stateType: 'compound' },
  ]);

  it("says XState's reason instead of throwing", () => {
    const rerun = rerunOnDefinition(setup, log, midBatch);
    expect(rerun.ok).toBe(false);
    expect(rerun.ok ? '' : rerun.refused).toMatch(/initial/i);
  });

  it('marks the events again once the rest of the chart has arrived', () => {
    const whole = applyOps(midBatch, [{ type: 'state.setInitial', id: browsing.id, initial: 'inner' }]);
    const rerun = rerunOnDefinition(setup, log, whole);
    expect(rerun.ok).toBe(true);
    expect(rerun.ok && rerun.marks.map((m) => m.seq)).toEqual([1, 2]);
    // Unchanged but for browsing's child: the run still goes from browsing to paying.card to paying.wallet.
    expect(rerun.ok && rerun.trace.steps.at(-1)?.activePaths).toContain('paying.wallet');
  });

  it('the same chart, rebuilt, re-runs with every event still applying', () => {
    const rerun = rerunOnDefinition(setup, log, def(checkout));
    expect(rerun.ok && rerun.marks.map((m) => m.noLongerApplies)).toEqual([false, false]);
  });
});

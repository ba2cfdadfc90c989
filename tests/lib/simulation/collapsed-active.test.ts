import { describe, expect, it } from 'vitest';
import { collapseView } from '../../../src/lib/layout/index.ts';
import { activeInside } from '../../../src/lib/simulation/diagram.ts';
import { enabledTransitions, eventOptions, Simulator } from '../../../src/lib/simulation/index.ts';
import { keyPathOf } from '../../../src/lib/model/tree.ts';
import { def, logOf } from './fixtures.ts';

/**
 * Fit's overview must not hide where a simulation is: a collapsed state that holds active
 * states says which, and the transitions enabled now from states hidden inside it are
 * still drawn (re-pointed to the box) under their own ids, so their labels stay buttons.
 */

const PAY = def({
  id: 'pay',
  initial: 'paying',
  states: {
    paying: {
      initial: 'trying',
      states: {
        trying: { on: { FAIL: 'retrying', OK: '#pay.done' } },
        retrying: { on: { RETRY: 'trying', GIVE_UP: '#pay.failed' } },
      },
    },
    done: {},
    failed: {},
  },
});

describe('a collapsed state while simulating', () => {
  it('names the deepest active states inside it, relative to it', () => {
    expect(activeInside(['paying', 'paying.retrying'], 'paying')).toEqual(['retrying']);
    expect(activeInside(['open', 'open.light', 'open.light.on', 'open.alarm', 'open.alarm.armed'], 'open')).toEqual([
      'light.on',
      'alarm.armed',
    ]);
    expect(activeInside(['paying', 'paying.retrying'], 'done')).toEqual([]);
    // A sibling whose name starts the same is not inside.
    expect(activeInside(['payingLater', 'payingLater.x'], 'paying')).toEqual([]);
  });

  it('keeps each enabled transition from a hidden state, re-pointed to the box that hides it', () => {
    const sim = new Simulator({ definition: PAY, context: null, guards: {} });
    sim.start();
    const [fail] = logOf(['FAIL']);
    if (!fail) throw new Error('no entry');
    const at = sim.apply(fail);
    expect(at.activePaths).toEqual(['paying', 'paying.retrying']);
    const paying = Object.values(PAY.states).find((s) => s.key === 'paying')?.id ?? '';
    const { view, hidden } = collapseView(PAY, new Set([paying]));
    expect(hidden[paying]).toBe(2);
    const enabled = enabledTransitions(PAY, at.activePaths, eventOptions(sim, {}), {});
    expect(enabled.map((id) => PAY.transitions[id]?.event).sort()).toEqual(['GIVE_UP', 'RETRY']);
    // GIVE_UP leaves the box: drawn from it, under its own id, its real source still known.
    const giveUp = enabled.find((id) => PAY.transitions[id]?.event === 'GIVE_UP') ?? '';
    expect(view.transitions[giveUp]?.source).toBe(paying);
    expect(keyPathOf(PAY, PAY.transitions[giveUp]?.source ?? '').join('.')).toBe('paying.retrying');
    // RETRY stays inside the box: not drawn, so nothing to click there.
    const retry = enabled.find((id) => PAY.transitions[id]?.event === 'RETRY') ?? '';
    expect(view.transitions[retry]).toBeUndefined();
  });
});

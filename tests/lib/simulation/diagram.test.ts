import { describe, expect, it } from 'vitest';
import {
  enabledTransitions,
  eventOptions,
  replay,
  Simulator,
  takenTransitions,
} from '../../../src/lib/simulation/index.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';
import { checkout, def, logOf, setupOf } from './fixtures.ts';

/** The simulation's marks on the diagram: transitions enabled now, and the ones a step took. */

const idOf = (d: MachineDefinition, event: string, sourceKey?: string) =>
  Object.values(d.transitions).find(
    (t) => t.event === event && (sourceKey === undefined || d.states[t.source]?.key === sourceKey),
  )?.id;

describe('transitions enabled now', () => {
  it('marks the transitions from active states whose event is enabled, guards by the switches', () => {
    const setup = setupOf(checkout);
    const sim = new Simulator(setup);
    const at = sim.start();
    const off = enabledTransitions(setup.definition, at.activePaths, eventOptions(sim, {}), {});
    expect(off).toEqual([idOf(setup.definition, 'ADD')]);
    const on = enabledTransitions(setup.definition, at.activePaths, eventOptions(sim, { hasItems: true }), {
      hasItems: true,
    });
    expect(on.sort()).toEqual([idOf(setup.definition, 'ADD'), idOf(setup.definition, 'CHECKOUT')].sort());
  });

  it('the deepest state wins an event both it and its parent answer', () => {
    const d = def({
      id: 'm',
      initial: 'a',
      states: { a: { initial: 'x', on: { GO: 'b' }, states: { x: { on: { GO: 'y' } }, y: {} } }, b: {} },
    });
    const sim = new Simulator({ definition: d, context: null, guards: {} });
    const ids = enabledTransitions(d, sim.start().activePaths, eventOptions(sim, {}), {});
    expect(ids).toEqual([idOf(d, 'GO', 'x')]);
  });

  it('nothing is enabled without enabled options', () => {
    const d = def(checkout);
    expect(enabledTransitions(d, ['browsing'], [], {})).toEqual([]);
  });
});

describe('transitions just taken', () => {
  it('an event takes its transition; an ignored entry takes none; advanced time takes the delayed one', () => {
    const setup = setupOf(checkout);
    const entries = logOf([{ type: 'CHECKOUT', guards: { hasItems: true } }, 'NOPE', 'time']);
    const trace = replay(setup, entries);
    const [s0, s1, s2, s3] = trace.steps;
    const d = setup.definition;
    expect(takenTransitions(d, s0!, s1!, entries[0])).toEqual([idOf(d, 'CHECKOUT')]);
    expect(takenTransitions(d, s1!, s2!, entries[1])).toEqual([]);
    const delayed = Object.values(d.transitions).find((t) => typeof t.event === 'object' && 'after' in t.event);
    expect(takenTransitions(d, s2!, s3!, entries[2])).toEqual([delayed?.id]);
  });
});

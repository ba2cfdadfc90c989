import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOps,
  counterIds,
  exportXState,
  importXState,
  integrityProblems,
  opsFromConfig,
  stateAtPath,
  type JsonObject,
} from '../../../src/lib/model/index.ts';
import { definition } from './arbitraries.ts';
import { fixtures } from './helpers.ts';

describe('code edits become ops (opsFromConfig)', () => {
  const checkout = fixtures().find((f) => f.name === 'checkout.json')?.config as JsonObject;

  it('an unchanged config gives no ops', () => {
    const def = importXState(checkout, { ids: counterIds() });
    expect(opsFromConfig(def, checkout, counterIds('e'))).toEqual([]);
  });

  it('changing one guard is one transition.update, and every id survives', () => {
    const def = importXState(checkout, { ids: counterIds() });
    const edited = structuredClone(checkout);
    const shipping = (edited.states as Record<string, { on: Record<string, { guard: unknown }> }>).shipping;
    if (shipping?.on['shipping.submit']) shipping.on['shipping.submit'].guard = 'addressComplete';
    const ops = opsFromConfig(def, edited, counterIds('e'));
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ type: 'transition.update', changes: { guard: { type: 'addressComplete' } } });
    const after = applyOps(def, ops);
    expect(Object.keys(after.states)).toEqual(Object.keys(def.states));
    expect(exportXState(after)).toStrictEqual(edited);
  });

  it('adding a state and reordering states keeps the ids of the others', () => {
    const def = importXState(checkout, { ids: counterIds() });
    const states = checkout.states as JsonObject;
    const edited: JsonObject = { ...checkout, states: { review: { on: { OK: 'payment' } }, ...states } };
    const after = applyOps(def, opsFromConfig(def, edited, counterIds('e')));
    expect(exportXState(after)).toStrictEqual(edited);
    expect(Object.keys(exportXState(after).states as object)[0]).toBe('review');
    expect(stateAtPath(after, 'payment.processing')).toBe(stateAtPath(def, 'payment.processing'));
  });

  it('property: from any definition to any config, the ops reach exactly that config', () => {
    fc.assert(
      fc.property(definition, definition, (from, to) => {
        const target = exportXState(to);
        const ops = opsFromConfig(from, target, counterIds('edit'));
        const after = applyOps(from, ops);
        expect(integrityProblems(after)).toEqual([]);
        expect(exportXState(after)).toStrictEqual(target);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

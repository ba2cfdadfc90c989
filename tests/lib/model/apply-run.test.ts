import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { diffToOps } from '../../../src/lib/canvas-ops/diff.ts';
import { applyOp, applyOps, OpError, type Op } from '../../../src/lib/model/index.ts';
import { definition, freeze, intent, opsFrom } from './arbitraries.ts';

/**
 * applyOps runs a whole sequence in one draft (a pasted 1,000-state
 * chart was applied op by op, each op copying every state, and took seconds). It must give
 * what applying the ops one by one gives, fail where that fails, and never write to its
 * input or to the ops.
 */
describe('applyOps: one draft for a run of ops', () => {
  it('equals applying the ops one by one, and writes to neither the definition nor the ops', () => {
    fc.assert(
      fc.property(definition, fc.array(intent, { minLength: 1, maxLength: 40 }), (def, intents) => {
        const ops = opsFrom(def, intents);
        const expected = ops.reduce(applyOp, def);
        freeze(def);
        freeze(ops);
        expect(applyOps(def, ops)).toStrictEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('throws the same error as op by op when one op of the run does not apply', () => {
    fc.assert(
      fc.property(definition, fc.array(intent, { minLength: 1, maxLength: 20 }), (def, intents) => {
        const ops = opsFrom(def, intents);
        const bad: Op = { type: 'state.delete', id: 'no-such-state' };
        const run = [...ops, bad, ...ops];
        let oneByOne: unknown = null;
        try {
          run.reduce(applyOp, def);
        } catch (err) {
          oneByOne = err;
        }
        expect(oneByOne).toBeInstanceOf(OpError);
        expect(() => applyOps(freeze(def), run)).toThrow((oneByOne as Error).message);
      }),
      { numRuns: 60 },
    );
  });

  it('a pasted 1,000-state chart: the same definition as op by op', () => {
    const start = generateChart(3);
    const big = generateChart(1000);
    const ops = diffToOps(start, big);
    expect(ops.length).toBeGreaterThan(500);
    expect(applyOps(start, ops)).toStrictEqual(ops.reduce(applyOp, start));
  });
});

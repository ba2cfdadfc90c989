import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chartroomModel } from '../../../src/lib/collab/chartroom.ts';
import { recordEdit, emptyHistory, undo, redo } from '../../../src/lib/collab/history.ts';
import { applyEach, invertAll } from '../../../src/lib/collab/rebase.ts';
import type { OpModel } from '../../../src/lib/collab/types.ts';
import { diffToOps } from '../../../src/lib/canvas-ops/diff.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import {
  applyOp,
  applyOps,
  invert,
  invertRun,
  OpError,
  type MachineDefinition,
  type Op,
} from '../../../src/lib/model/index.ts';
import { definition, freeze, intent, opsFrom } from '../model/arbitraries.ts';

/**
 * The undo entry of a batch is computed in one draft (`invertRun`): a pasted 1,000-state
 * chart cost ~480 ms when every op's inverse was followed by an apply that copied every
 * state. The reference below is the former `invertAll`, op by op; the new one must give
 * the same inverses, byte for byte, and throw the same errors.
 */
function invertOneByOne(before: MachineDefinition, ops: readonly Op[]): Op[] {
  const inverses: Op[][] = [];
  let current = before;
  for (const op of ops) {
    inverses.push(invert(current, op));
    current = applyOp(current, op);
  }
  return inverses.reverse().flat();
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  return null;
}

const batch = fc.tuple(definition, definition, fc.array(intent, { minLength: 1, maxLength: 40 }));

describe('invertAll: the inverses of a batch in one pass', () => {
  it('equals the op-by-op inverses exactly, and writes to neither the definition nor the ops', () => {
    fc.assert(
      fc.property(batch, ([def, other, intents]) => {
        const ops = opsFrom(def, intents, 'inv', other);
        const expected = invertOneByOne(def, ops);
        freeze(def);
        freeze(ops);
        const got = invertAll(chartroomModel, def, ops);
        expect(got).toStrictEqual(expected);
        expect(JSON.stringify(got)).toBe(JSON.stringify(expected)); // key order too
        const run = invertRun(def, ops);
        expect(run.inverse).toStrictEqual(expected);
        expect(run.definition).toStrictEqual(ops.reduce(applyOp, def));
      }),
      { numRuns: 150 },
    );
  });

  it('undoes the batch: the inverses bring the definition back, and their inverses redo it', () => {
    fc.assert(
      fc.property(batch, ([def, other, intents]) => {
        const ops = opsFrom(def, intents, 'inv', other);
        const after = ops.reduce(applyOp, def);
        const inverse = invertAll(chartroomModel, def, ops);
        // Undoing a replace puts back the definition before it, which `machine.replace`
        // refuses when its machineId is null (as before this change; see the next case).
        fc.pre(!ops.some((op) => op.type === 'machine.replace'));
        expect(applyOps(after, inverse)).toStrictEqual(def);
        const again = invertAll(chartroomModel, after, inverse);
        expect(again).toStrictEqual(invertOneByOne(after, inverse));
        expect(applyOps(def, again)).toStrictEqual(after);
      }),
      { numRuns: 100 },
    );
  });

  it('with replaces in the batch, undo lands or fails exactly as the op-by-op inverses do', () => {
    fc.assert(
      fc.property(batch, ([def, other, intents]) => {
        const ops = opsFrom(def, intents, 'inv', other);
        const after = ops.reduce(applyOp, def);
        const undoNew = thrown(() => applyOps(after, invertAll(chartroomModel, def, ops)));
        const undoOld = thrown(() => applyOps(after, invertOneByOne(def, ops)));
        expect(undoNew).toStrictEqual(undoOld);
        if (undoOld === null) expect(applyOps(after, invertAll(chartroomModel, def, ops))).toStrictEqual(def);
      }),
      { numRuns: 100 },
    );
  });

  it('throws what the op-by-op fold throws when an op of the batch does not apply or is malformed', () => {
    const bad: Op[] = [
      { type: 'state.delete', id: 'no-such-state' },
      { type: 'state.update', id: 'ROOT', changes: null } as unknown as Op,
      { type: 'no.such.op' } as unknown as Op,
      null as unknown as Op,
      { type: 'machine.replace', definition: { format: 2 } } as unknown as Op,
    ];
    fc.assert(
      fc.property(batch, fc.constantFrom(...bad), ([def, other, intents], wrong) => {
        const ops = opsFrom(def, intents, 'inv', other);
        // The malformed update names a state that exists, so its shape is what fails.
        const named = wrong?.type === 'state.update' ? { ...wrong, id: def.root } : wrong;
        const run = [...ops, named, ...ops];
        const expected = thrown(() => invertOneByOne(def, run));
        expect(expected).toBeInstanceOf(Error); // an OpError, or a TypeError for a null op (as applyOp throws)
        const got = thrown(() => invertAll(chartroomModel, freeze(def), run));
        expect(got).toBeInstanceOf((expected as Error).constructor);
        expect((got as Error).message).toBe((expected as Error).message);
        expect((got as Partial<OpError>).code).toBe((expected as Partial<OpError>).code);
      }),
      { numRuns: 60 },
    );
  });

  it('a pasted 1,000-state chart: the same undo entry as op by op, and undo/redo round-trip it', () => {
    const start = generateChart(3);
    const big = generateChart(1000);
    const ops = diffToOps(start, big);
    expect(ops.length).toBeGreaterThan(500);
    const expected = invertOneByOne(start, ops);
    const history = recordEdit(chartroomModel, emptyHistory<Op>(), start, ops);
    expect(history.undo).toStrictEqual([expected]);
    const after = applyOps(start, ops);
    const undone = undo(chartroomModel, history, after);
    expect(undone?.dropped).toEqual([]);
    expect(undone?.doc).toStrictEqual(start);
    const redone = redo(chartroomModel, undone!.history, undone!.doc);
    expect(redone?.doc).toStrictEqual(after);
    // And the other way: cutting it back down deletes (inverses that read the chart before them).
    const cut = diffToOps(after, start);
    const back = invertAll(chartroomModel, after, cut);
    expect(back).toStrictEqual(invertOneByOne(after, cut));
    expect(applyOps(applyOps(after, cut), back)).toStrictEqual(after);
  });

  it('a model without a batch inverse is still inverted op by op', () => {
    const model: OpModel<MachineDefinition, Op> = { apply: applyOp, invert };
    const def = generateChart(30);
    const ops = diffToOps(def, generateChart(60));
    expect(invertAll(model, def, ops)).toStrictEqual(invertOneByOne(def, ops));
  });
});

/** Undo applies an entry with `applyEach`: in one draft when every op still applies. */
describe('applyEach: an undo entry landing on a document', () => {
  const oneByOne: OpModel<MachineDefinition, Op> = { apply: applyOp, invert };

  it('keeps, drops and lands exactly as op by op, on the chart it was made for or on another', () => {
    fc.assert(
      fc.property(batch, fc.boolean(), ([def, other, intents], elsewhere) => {
        const ops = opsFrom(def, intents, 'each');
        const target = elsewhere ? other : def; // on another chart, some ops no longer apply
        freeze(ops);
        expect(applyEach(chartroomModel, freeze(target), ops)).toStrictEqual(applyEach(oneByOne, target, ops));
      }),
      { numRuns: 150 },
    );
  });
});

import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { applyOp, applyOps, invertRun, type Op } from '../../../src/lib/model/index.ts';
import { applyRun } from '../../../src/lib/model/apply.ts';
import { Draft } from '../../../src/lib/model/draft.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';
import { definition, freeze, intent, opsFrom } from './arbitraries.ts';

/**
 * A delete asks which transitions touch the doomed states and which states keep a history
 * target inside them. A run's draft answers from an index built once for the run (
 * each delete of a multi-delete used to scan the whole chart). The former scan is still
 * there (`applyRun(..., false)`) as the reference: both must give the same definition.
 */

/** k states of `def` to delete, none the root, picked by `picks` (some may sit inside others). */
function deletesOf(def: MachineDefinition, picks: number[]): Op[] {
  const ids = Object.keys(def.states)
    .filter((s) => s !== def.root)
    .sort();
  const ops: Op[] = [];
  let current = def;
  for (const n of picks) {
    const live = ids.filter((s) => current.states[s] !== undefined);
    if (live.length === 0) break;
    const op: Op = { type: 'state.delete', id: live[n % live.length] as string };
    current = applyOp(current, op);
    ops.push(op);
  }
  return ops;
}

describe('deletes in a run: the index gives what the scan gives', () => {
  afterEach(() => vi.restoreAllMocks());

  it('any run of edits and deletes: the same definition with the index as with the former scan', () => {
    fc.assert(
      fc.property(
        definition,
        fc.array(intent, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(1000), { maxLength: 8 }),
        fc.array(intent, { maxLength: 20 }),
        (def, before, picks, after) => {
          // Edits (retargets, history targets, inserts, deletes), then a multi-delete, then edits again:
          // the index must follow what the run changed before and between its deletes.
          const first = opsFrom(def, before, 'a');
          const mid = applyOps(def, first);
          const cut = deletesOf(mid, picks);
          const last = opsFrom(applyOps(mid, cut), after, 'b');
          const ops = freeze([...first, ...cut, ...last]);
          freeze(def);
          const scanned = applyRun(def, ops, undefined, false);
          expect(applyRun(def, ops)).toStrictEqual(scanned);
          expect(scanned).toStrictEqual(ops.reduce(applyOp, def));
          // The undo entry read through the index restores the definition the run started from.
          const { definition: done, inverse } = invertRun(def, ops);
          expect(applyOps(done, inverse)).toEqual(def);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('deleting 100 states of a 1,000-state chart: the same result, and the transitions are read once, not once per delete', () => {
    const big = generateChart(1000);
    const ops = deletesOf(
      big,
      Array.from({ length: 100 }, (_, i) => i * 37),
    );
    expect(ops).toHaveLength(100);
    const reads = vi.spyOn(Draft.prototype, 'allTransitions');
    const indexed = applyRun(big, ops);
    const indexedReads = reads.mock.calls.length;
    reads.mockClear();
    const scanned = applyRun(big, ops, undefined, false);
    expect(indexed).toStrictEqual(scanned);
    expect(indexedReads).toBe(1);
    expect(reads.mock.calls.length).toBe(100);
    expect(Object.keys(indexed.states).length).toBeLessThan(900);
  });
});

import { describe, expect, it } from 'vitest';
import { applyOp } from '../../../src/lib/model/apply.ts';
import { emptyMachine } from '../../../src/lib/model/empty.ts';
import { invert } from '../../../src/lib/model/invert.ts';
import { OpError } from '../../../src/lib/model/op-types.ts';
import { resolveOp } from '../../../src/lib/model/resolve.ts';
import { emptyDefinition } from '../../adapters/machines-fixtures.ts';

/** `machine.replace` (how a machine inserted with content enters its log) and `resolveOp`. */
describe('machine.replace', () => {
  it('replaces the whole definition when it is sound, and inverts to the one before', () => {
    const before = emptyDefinition();
    const wanted = emptyMachine('checkout');
    expect(applyOp(before, { type: 'machine.replace', definition: wanted })).toEqual(wanted);
    expect(invert(before, { type: 'machine.replace', definition: wanted })).toEqual([
      { type: 'machine.replace', definition: before },
    ]);
  });

  it('refuses a malformed or unsound definition: on replay it is a no-op, never a stored chart', () => {
    const before = emptyDefinition();
    const broken = { ...emptyMachine('x'), root: 's_nowhere' };
    expect(() => applyOp(before, { type: 'machine.replace', definition: broken })).toThrow(OpError);
    expect(() => applyOp(before, { type: 'machine.replace', definition: { format: 2 } as never })).toThrow(/format 1/);
    expect(resolveOp(before, { type: 'machine.replace', definition: broken })).toMatchObject({
      definition: before,
      applied: [],
    });
  });
});

import { describe, expect, it } from 'vitest';
import { opsForEdit, retargetOps } from '../../../src/lib/canvas-ops/index.ts';
import {
  applyOps,
  counterIds,
  exportXState,
  importXState,
  type MachineDefinition,
} from '../../../src/lib/model/index.ts';

const def = (): MachineDefinition =>
  importXState(
    {
      id: 'm',
      type: 'parallel',
      states: {
        a: { initial: 'x', states: { x: { on: { GO: { target: ['#m.a.y', '#m.b.q'] } } }, y: {}, z: {} } },
        b: { initial: 'p', states: { p: { on: { TICK: { actions: 'log' } } }, q: {}, r: {} } },
      },
    },
    { ids: counterIds('m') },
  );
const idOf = (d: MachineDefinition, path: string): string => {
  const [top, leaf] = path.split('.');
  const parent = Object.values(d.states).find((s) => s.key === top && s.parent === d.root);
  return Object.values(d.states).find((s) => s.key === leaf && s.parent === parent?.id)?.id ?? 'missing';
};
const go = (d: MachineDefinition) => Object.values(d.transitions).find((t) => t.event === 'GO')!;

describe('retargeting an arrow by dropping its end on a state', () => {
  it('replaces only the dragged target, as one transition.retarget op that applies', () => {
    const d = def();
    const ops = retargetOps(d, go(d).id, 0, idOf(d, 'a.z'));
    expect(ops).toEqual([{ type: 'transition.retarget', id: go(d).id, targets: [idOf(d, 'a.z'), idOf(d, 'b.q')] }]);
    expect(exportXState(applyOps(d, ops))).toMatchObject({
      states: { a: { states: { x: { on: { GO: { target: ['z', '#m.b.q'] } } } } } },
    });
    // The second arrow is index 1.
    expect(retargetOps(d, go(d).id, 1, idOf(d, 'b.r'))).toEqual([
      { type: 'transition.retarget', id: go(d).id, targets: [idOf(d, 'a.y'), idOf(d, 'b.r')] },
    ]);
  });

  it('changes nothing on the same target, another of its targets, empty space (the root), a gone state or transition, or a bad index', () => {
    const d = def();
    const t = go(d);
    expect(retargetOps(d, t.id, 0, idOf(d, 'a.y'))).toEqual([]);
    expect(retargetOps(d, t.id, 0, idOf(d, 'b.q'))).toEqual([]);
    expect(retargetOps(d, t.id, 0, d.root)).toEqual([]);
    expect(retargetOps(d, t.id, 0, 's_gone')).toEqual([]);
    expect(retargetOps(d, 't_gone', 0, idOf(d, 'a.z'))).toEqual([]);
    expect(retargetOps(d, t.id, 2, idOf(d, 'a.z'))).toEqual([]);
    expect(retargetOps(d, t.id, -1, idOf(d, 'a.z'))).toEqual([]);
    expect(retargetOps(d, t.id, 0.5, idOf(d, 'a.z'))).toEqual([]);
    // A targetless transition has no end to drag.
    const tick = Object.values(d.transitions).find((x) => x.event === 'TICK')!;
    expect(retargetOps(d, tick.id, 0, idOf(d, 'b.q'))).toEqual([]);
  });

  it('is the meaning of the canvas edit.retarget gesture', () => {
    const d = def();
    const edit = { type: 'edit.retarget', id: go(d).id, index: 0, target: idOf(d, 'a.z') } as const;
    expect(opsForEdit(d, edit)).toEqual(retargetOps(d, go(d).id, 0, idOf(d, 'a.z')));
  });
});

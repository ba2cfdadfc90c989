import { describe, expect, it } from 'vitest';
import {
  addChildOps,
  deleteOps,
  describeDiff,
  renameOps,
  retargetOps,
  setEventOps,
  versionDiff,
} from '../../../src/lib/canvas-ops/index.ts';
import { applyOps, counterIds, importXState, type MachineDefinition } from '../../../src/lib/model/index.ts';

/**
 * The visual diff of two versions of one machine: each element added, removed or changed
 * by id (a rename is a change, not a removal and an addition), in words, and the union
 * the diagram draws.
 */

const checkout = (): MachineDefinition =>
  importXState(
    {
      id: 'checkout',
      initial: 'cart',
      states: {
        cart: { on: { PAY: 'paying' } },
        paying: { on: { PAID: 'done', FAIL: 'cart' } },
        done: { type: 'final' },
      },
    },
    { ids: counterIds('c') },
  );
const stateId = (d: MachineDefinition, key: string): string =>
  Object.values(d.states).find((s) => s.key === key)?.id ?? 'missing';
const transitionId = (d: MachineDefinition, event: string): string =>
  Object.values(d.transitions).find((t) => t.event === event)?.id ?? 'missing';

describe('versionDiff', () => {
  it('finds nothing between a version and itself, and draws it as it is', () => {
    const v = checkout();
    const diff = versionDiff(v, v);
    expect(diff.changes).toEqual([]);
    expect(diff.marks.size).toBe(0);
    expect(diff.union).toBe(v);
  });

  it('marks an added state and says where, and a retargeted transition in words', () => {
    const v1 = checkout();
    const paying = stateId(v1, 'paying');
    let v2 = applyOps(v1, addChildOps(v1, paying, 's_new', 'retrying'));
    v2 = applyOps(v2, retargetOps(v2, transitionId(v2, 'PAY'), 0, 's_new'));
    const diff = versionDiff(v1, v2);
    expect(diff.marks.get('s_new')).toBe('added');
    expect(diff.marks.get(transitionId(v2, 'PAY'))).toBe('changed');
    const words = diff.changes.map((c) => c.text);
    expect(words).toContain('added state `paying.retrying` under `paying`');
    expect(words).toContain('`PAY` from `cart` now goes to `paying.retrying`');
    // paying became compound with an initial child: a change to it.
    expect(diff.marks.get(paying)).toBe('changed');
  });

  it('reads a rename as a change of the same state, where matching by path alone sees one removed and one added', () => {
    const v1 = checkout();
    const paying = stateId(v1, 'paying');
    const v2 = applyOps(v1, renameOps(v1, paying, 'charging'));
    const diff = versionDiff(v1, v2);
    expect(diff.changes.filter((c) => c.what === 'state')).toEqual([
      { kind: 'changed', what: 'state', path: 'charging', text: '`charging` renamed from `paying`', id: paying },
    ]);
    const byPath = describeDiff(v1, v2).filter((c) => c.what === 'state');
    expect(byPath.map((c) => c.kind).sort()).toEqual(['added', 'removed']);
  });

  it('puts a removed state and its transitions back in the union, marked removed', () => {
    const v1 = checkout();
    const paying = stateId(v1, 'paying');
    const v2 = applyOps(v1, deleteOps(v1, [paying]));
    const diff = versionDiff(v1, v2);
    expect(diff.marks.get(paying)).toBe('removed');
    expect(Object.hasOwn(v2.states, paying)).toBe(false);
    expect(diff.union.states[paying]?.parent).toBe(v1.root);
    expect(diff.union.states[v1.root]?.children).toContain(paying);
    for (const event of ['PAID', 'FAIL']) {
      const t = transitionId(v1, event);
      expect(diff.marks.get(t)).toBe('removed');
      expect(diff.union.transitions[t]?.source).toBe(paying);
    }
    expect(diff.changes.map((c) => c.text)).toContain('removed state `paying`');
  });

  it('says a renamed event and a version compared the other way round', () => {
    const v1 = checkout();
    const v2 = applyOps(v1, setEventOps(v1, transitionId(v1, 'FAIL'), 'DECLINED'));
    const forward = versionDiff(v1, v2);
    expect(forward.changes.map((c) => c.text)).toEqual(['`DECLINED` from `paying` used to be `FAIL`']);
    const back = versionDiff(v2, v1);
    expect(back.changes.map((c) => c.text)).toEqual(['`FAIL` from `paying` used to be `DECLINED`']);
  });

  it('matches by path a state whose id is new (a version re-imported), so it is not removed and added', () => {
    const v1 = checkout();
    const v2 = importXState(
      {
        id: 'checkout',
        initial: 'cart',
        states: { cart: { on: { PAY: 'paying' } }, paying: { on: { PAID: 'done' } }, done: { type: 'final' } },
      },
      { ids: counterIds('other') },
    );
    const diff = versionDiff(v1, v2);
    expect(diff.changes.map((c) => [c.kind, c.text])).toEqual([['removed', 'removed `FAIL` from `paying`']]);
    expect(diff.union.transitions[transitionId(v1, 'FAIL')]?.source).toBe(stateId(v2, 'paying'));
  });
});

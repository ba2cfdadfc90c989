import { describe, expect, it } from 'vitest';
import {
  addChildState,
  addSiblingState,
  addTransition,
  applyOps,
  counterIds,
  exportXState,
  importXState,
  stateAtPath,
  uniqueKey,
  validateDefinition,
} from '../../../src/lib/model/index.ts';

const base = () =>
  importXState({ id: 'm', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } }, { ids: counterIds() });

describe('recipes: canvas actions as op lists', () => {
  it('adding a first child makes the parent compound with that child initial, and stays valid', () => {
    const def = base();
    const busy = stateAtPath(def, 'busy') as string;
    const { id, ops } = addChildState(def, busy, { ids: counterIds('r') });
    expect(ops.map((o) => o.type)).toEqual(['state.setType', 'state.add', 'state.setInitial']);
    const after = applyOps(def, ops);
    expect(exportXState(after).states).toMatchObject({ busy: { initial: 'state', states: { state: {} } } });
    expect(after.states[id]?.key).toBe('state');
    expect(validateDefinition(after)).toEqual([]);
  });

  it('a sibling goes right after its neighbour with a fresh key', () => {
    const def = base();
    const idle = stateAtPath(def, 'idle') as string;
    expect(uniqueKey(def, def.root, 'busy')).toBe('busy2');
    const { ops } = addSiblingState(def, idle, { key: uniqueKey(def, def.root, 'busy'), ids: counterIds('r') });
    expect(ops.map((o) => o.type)).toEqual(['state.add']);
    expect(Object.keys(exportXState(applyOps(def, ops)).states as object)).toEqual(['idle', 'busy2', 'busy']);
  });

  it('a new transition goes after the existing ones for its source', () => {
    const def = base();
    const idle = stateAtPath(def, 'idle') as string;
    const busy = stateAtPath(def, 'busy') as string;
    const { op } = addTransition(def, idle, 'GO', [idle], { ids: counterIds('r') });
    const after = applyOps(def, [op]);
    expect(exportXState(after).states).toMatchObject({
      idle: { on: { GO: [{ target: 'busy' }, { target: 'idle' }] } },
    });
    expect(Object.values(after.transitions).map((t) => t.targets)).toContainEqual([busy]);
  });
});

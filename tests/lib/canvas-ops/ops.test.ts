import { describe, expect, it } from 'vitest';
import {
  addChildOps,
  addSiblingOps,
  connectOps,
  deleteOps,
  diffToOps,
  freshKey,
  keyProblem,
  renameOps,
  setEventOps,
} from '../../../src/lib/canvas-ops/index.ts';
import {
  applyOps,
  checkXStateText,
  counterIds,
  exportXState,
  importXState,
  type JsonObject,
  type MachineDefinition,
} from '../../../src/lib/model/index.ts';
import { fixtures } from '../model/helpers.ts';

const config: JsonObject = {
  id: 'light',
  initial: 'green',
  states: {
    green: { on: { TIMER: 'yellow' } },
    yellow: { on: { TIMER: 'red' } },
    red: { initial: 'walk', states: { walk: { on: { COUNTDOWN: 'wait' } }, wait: {} }, on: { TIMER: 'green' } },
  },
};
const def = (): MachineDefinition => importXState(config, { ids: counterIds('l') });
const id = (d: MachineDefinition, key: string): string =>
  Object.values(d.states).find((s) => s.key === key)?.id ?? 'missing';
const exported = (d: MachineDefinition): string => JSON.stringify(exportXState(d));

describe('canvas gestures as ops', () => {
  it('adds a child to an atomic state: it becomes compound with the child as initial', () => {
    const d = def();
    const next = applyOps(d, addChildOps(d, id(d, 'green'), 's_new'));
    expect(next.states[id(d, 'green')]).toMatchObject({ type: 'compound', initial: 's_new', children: ['s_new'] });
    expect(next.states.s_new?.key).toBe('state');
  });

  it('adds a sibling right after the state with a fresh key', () => {
    const d = def();
    const a = applyOps(d, addSiblingOps(d, id(d, 'green'), 's_a'));
    const b = applyOps(a, addSiblingOps(a, id(a, 'green'), 's_b'));
    expect(b.states[b.root]?.children.slice(0, 3)).toEqual([id(d, 'green'), 's_b', 's_a']);
    expect(b.states.s_b?.key).toBe('state2');
    expect(freshKey(b, b.root, 'state')).toBe('state3');
  });

  it('renames (trimmed) and explains keys that cannot be used', () => {
    const d = def();
    expect(applyOps(d, renameOps(d, id(d, 'green'), ' go ')).states[id(d, 'green')]?.key).toBe('go');
    expect(renameOps(d, id(d, 'green'), 'green')).toEqual([]);
    expect(keyProblem(d, id(d, 'green'), 'yellow')).toMatch(/already/);
    expect(keyProblem(d, id(d, 'green'), 'a.b')).toMatch(/"\."/);
    expect(keyProblem(d, id(d, 'green'), '')).toMatch(/needs a name/);
    expect(keyProblem(d, id(d, 'green'), 'amber')).toBeNull();
  });

  it('deletes selected states and transitions; an emptied compound becomes atomic, a lost initial is replaced', () => {
    const d = def();
    const countdown = Object.values(d.transitions).find((t) => t.event === 'COUNTDOWN');
    if (!countdown) throw new Error('fixture');
    const next = applyOps(d, deleteOps(d, [id(d, 'walk'), countdown.id, d.root]));
    expect(next.states[id(d, 'walk')]).toBeUndefined();
    expect(next.states[id(d, 'red')]).toMatchObject({ initial: id(d, 'wait') });
    const none = applyOps(next, deleteOps(next, [id(d, 'wait')]));
    expect(none.states[id(d, 'red')]).toMatchObject({ type: 'atomic', children: [] });
    expect(none.states[none.root]).toBeDefined();
  });

  it('connects two states with a new transition last in priority, then names its event', () => {
    const d = def();
    const a = applyOps(d, connectOps(d, id(d, 'green'), id(d, 'red'), 't_new'));
    expect(a.transitions.t_new).toMatchObject({ source: id(d, 'green'), targets: [id(d, 'red')], event: 'EVENT' });
    const b = applyOps(a, setEventOps(a, 't_new', 'PANIC'));
    expect(b.transitions.t_new?.event).toBe('PANIC');
    expect(exportXState(b)).toMatchObject({ states: { green: { on: { TIMER: 'yellow', PANIC: 'red' } } } });
  });
});

describe('diffToOps (code edits as ops)', () => {
  const edit = (
    d: MachineDefinition,
    change: (c: JsonObject) => void,
  ): { ops: ReturnType<typeof diffToOps>; next: MachineDefinition } => {
    const c = structuredClone(exportXState(d));
    change(c);
    const checked = checkXStateText(JSON.stringify(c));
    if (!checked.definition) throw new Error(JSON.stringify(checked.issues));
    return { ops: diffToOps(d, checked.definition), next: checked.definition };
  };
  const states = (c: JsonObject): Record<string, JsonObject> => c.states as Record<string, JsonObject>;

  it('keeps ids: a renamed state is a rename, an edited event an update, nothing else moves', () => {
    const d = def();
    const { ops, next } = edit(d, (c) => {
      const s = states(c);
      s.amber = s.yellow as JsonObject;
      delete s.yellow;
      (s.green as JsonObject).on = { TIMER: 'amber' };
      c.states = { green: s.green as JsonObject, amber: s.amber, red: s.red as JsonObject };
    });
    expect(ops.map((o) => o.type).sort()).toEqual(['state.rename']);
    const after = applyOps(d, ops);
    expect(exported(after)).toBe(exported(next));
    expect(after.states[id(d, 'yellow')]?.key).toBe('amber');
  });

  it('adds, deletes and retargets, reproducing the edited config exactly', () => {
    const d = def();
    const { ops, next } = edit(d, (c) => {
      const s = states(c);
      delete s.yellow;
      s.green = { on: { TIMER: 'red', SKIP: { target: 'off', guard: 'night' } } };
      s.off = { type: 'final' };
    });
    const types = new Set(ops.map((o) => o.type));
    expect(types.has('state.insert')).toBe(false);
    expect(types.has('state.delete')).toBe(true);
    expect(types.has('state.add')).toBe(true);
    const after = applyOps(d, ops);
    expect(exported(after)).toBe(exported(next));
    expect(after.states[id(d, 'green')]).toBeDefined();
  });

  it('reproduces every fixture machine from an empty one and back again', () => {
    for (const f of fixtures()) {
      const target = importXState(f.config);
      const empty = importXState({ id: 'x', initial: 'a', states: { a: {} } });
      expect(exported(applyOps(empty, diffToOps(empty, target))), f.name).toBe(exported(target));
      expect(exported(applyOps(target, diffToOps(target, empty))), f.name).toBe(exported(empty));
      expect(diffToOps(target, importXState(f.config)), f.name).toEqual([]);
    }
  });
});

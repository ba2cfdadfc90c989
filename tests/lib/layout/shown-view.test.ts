import { describe, expect, it } from 'vitest';
import { collapsedFor, collapseView, type CollapseChoice } from '../../../src/lib/layout/collapse.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { shownKey } from '../../../src/lib/layout/shown-key.ts';
import { samePicture, shownView } from '../../../src/lib/layout/shown-view.ts';
import { applyOps } from '../../../src/lib/model/apply.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';

/**
 * The view worked out from the last one (a rename on a big chart) is the view worked out
 * from scratch: same states, same transitions, same hidden counts, same closed compounds.
 */
const pane = { width: 880, height: 760 };
const choice: CollapseChoice = { opened: [], closed: [], pane };

const fresh = (def: MachineDefinition, c: CollapseChoice) => {
  const collapsed = collapsedFor(def, c);
  return { ...collapseView(def, collapsed), collapsed };
};

const expectSame = (def: MachineDefinition, c: CollapseChoice) => {
  const got = shownView(def, c);
  const want = fresh(def, c);
  expect(shownKey(got.view)).toBe(shownKey(want.view));
  expect(got.hidden).toEqual(want.hidden);
  expect([...got.collapsed].sort()).toEqual([...want.collapsed].sort());
  return got;
};

const rename = (def: MachineDefinition, id: string, key: string) => applyOps(def, [{ type: 'state.rename', id, key }]);

describe('the shown view, worked out from the last one', () => {
  const def = generateChart(1000);
  const top = def.states[def.root]!.children[0]!;
  const hiddenState = Object.values(def.states).find((s) => s.children.length === 0 && s.parent !== def.root)!.id;

  it('a rename of a shown (closed) state gives the view from scratch, with the new name in it', () => {
    const before = expectSame(def, choice);
    const renamed = rename(def, top, 'renamedTop');
    const after = expectSame(renamed, choice);
    expect(after.view.states[top]?.key).toBe('renamedTop');
    expect(after.view.states[top]?.children).toEqual([]);
    // Nothing else was rebuilt: the other shown states and the transitions are the same objects.
    expect(after.view.transitions).toBe(before.view.transitions);
    for (const id of Object.keys(before.view.states))
      if (id !== top) expect(after.view.states[id]).toBe(before.view.states[id]);
    expect(samePicture(before.view, after.view)).toBe(false);
  });

  it('a rename of a hidden state keeps the same view object (nothing to lay out)', () => {
    const before = expectSame(def, choice);
    const renamed = rename(def, hiddenState, 'deepRenamed');
    expect(before.view.states[hiddenState]).toBeUndefined();
    const after = expectSame(renamed, choice);
    expect(after.view).toBe(before.view);
  });

  it('a new state or a new transition is worked out from scratch', () => {
    expectSame(def, choice);
    const added = applyOps(def, [
      { type: 'state.add', id: 's_new', parent: top, key: 'fresh', stateType: 'atomic', index: null },
    ]);
    expectSame(added, choice);
    const opened: CollapseChoice = { ...choice, opened: [top] };
    const view = expectSame(added, opened);
    expect(view.view.states['s_new']?.key).toBe('fresh');
  });

  it('an echo read back from the server (fresh objects, other key order) draws the same picture', () => {
    const { view } = shownView(def, choice);
    const echo = JSON.parse(
      JSON.stringify(view, (_k, v: unknown) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v as Record<string, unknown>).reverse())
          : v,
      ),
    ) as MachineDefinition;
    expect(samePicture(view, echo)).toBe(true);
    const moved = { ...echo, states: { ...echo.states, [top]: { ...echo.states[top]!, key: 'other' } } };
    expect(samePicture(view, moved)).toBe(false);
    expect(samePicture(view, { ...echo, name: 'another' })).toBe(false);
  });
});

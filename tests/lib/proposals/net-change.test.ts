import { describe, expect, it } from 'vitest';
import { addChildOps, connectOps, deleteOps, renameOps, setEventOps } from '../../../src/lib/canvas-ops/index.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { applyOps, exportXState, type MachineDefinition, type Op } from '../../../src/lib/model/index.ts';
import { replayResolved } from '../../../src/lib/model/resolve.ts';
import { mergeOutcome, netChange } from '../../../src/lib/proposals/merge.ts';

/**
 * A draft's net change by id (src/lib/proposals/net-change.ts): applied to the base it
 * gives the draft; applied on top of the target's own edits it keeps them, lands as the
 * draft's edits replayed after them in server order would, and lists what no longer
 * applies.
 */

const exported = (d: MachineDefinition) => JSON.stringify(exportXState(d));
const chart = generateChart(60);
const leaves = (d: MachineDefinition) =>
  Object.values(d.states).filter((s) => s.parent !== null && s.children.length === 0);

/** Edits one after another the way the canvas makes them. */
function edit(
  def: MachineDefinition,
  steps: ((d: MachineDefinition) => Op[])[],
): { def: MachineDefinition; ops: Op[] } {
  let current = def;
  const ops: Op[] = [];
  for (const step of steps) {
    const batch = step(current);
    current = applyOps(current, batch);
    ops.push(...batch);
  }
  return { def: current, ops };
}

describe('netChange', () => {
  it('turns the base into the draft with one op per difference', () => {
    const [a, b, c] = leaves(chart);
    const t = Object.values(chart.transitions)[0]!;
    const draft = edit(chart, [
      (d) => renameOps(d, a!.id, 'renamed'),
      (d) => addChildOps(d, b!.parent!, 'n_new', 'fresh'),
      (d) => deleteOps(d, [c!.id]),
      (d) => setEventOps(d, t.id, 'GO'),
      (d) => connectOps(d, a!.id, 'n_new', 't_new', 'NEXT'),
    ]);
    const ops = netChange(chart, draft.def);
    expect(exported(applyOps(chart, ops))).toBe(exported(draft.def));
    // The state's delete took its transitions with it; the net change names each.
    const gone = Object.keys(chart.transitions).filter((id) => !Object.hasOwn(draft.def.transitions, id));
    expect(
      ops
        .filter((o) => o.type === 'transition.delete')
        .map((o) => (o as { id: string }).id)
        .sort(),
    ).toEqual(gone.sort());
    expect(
      ops
        .filter((o) => o.type !== 'transition.delete')
        .map((o) => o.type)
        .sort(),
    ).toEqual(draft.ops.map((o) => o.type).sort());
  });

  it("keeps the target's own edits and lands as the draft's ops replayed after them", () => {
    const ls = leaves(chart);
    const draft = edit(chart, [
      (d) => renameOps(d, ls[0]!.id, 'draft_renamed'),
      (d) => addChildOps(d, ls[1]!.parent!, 'd_new', 'draft_added'),
    ]);
    const target = edit(chart, [
      (d) => renameOps(d, ls[2]!.id, 'target_renamed'),
      (d) => addChildOps(d, ls[1]!.parent!, 't_new', 'target_added'),
      (d) => deleteOps(d, [ls[3]!.id]),
    ]);
    const ops = netChange(chart, draft.def, target.def);
    const merged = mergeOutcome(target.def, ops);
    expect(merged.notApplied).toEqual([]);
    const keys = Object.values(merged.definition.states).map((s) => s.key);
    expect(keys).toEqual(expect.arrayContaining(['draft_renamed', 'draft_added', 'target_renamed', 'target_added']));
    expect(keys).not.toContain(ls[3]!.key);
    expect(exported(merged.definition)).toBe(exported(replayResolved(chart, [...target.ops, ...draft.ops])));
  });

  it('lists what no longer applies: a state the draft renamed and the target deleted', () => {
    const [a] = leaves(chart);
    const draft = edit(chart, [(d) => renameOps(d, a!.id, 'kept_name')]);
    const target = edit(chart, [(d) => deleteOps(d, [a!.id])]);
    const merged = mergeOutcome(target.def, netChange(chart, draft.def, target.def));
    expect(merged.notApplied).toEqual([
      expect.objectContaining({ index: 0, op: { type: 'state.rename', id: a!.id, key: 'kept_name' }, mended: false }),
    ]);
    expect(merged.definition.states[a!.id]).toBeUndefined();
  });

  it('places a state added between base siblings after its earlier sibling, even when the target lost some', () => {
    const parent = Object.values(chart.states).find((s) => s.children.length >= 3)!;
    const [first, second, third] = parent.children;
    const draft = edit(chart, [(d) => addChildOps(d, parent.id, 'between', 'between')]);
    // Move the new state between first and second in the draft.
    const placed = applyOps(draft.def, [{ type: 'state.move', id: 'between', parent: parent.id, index: 1 }]);
    const target = edit(chart, [(d) => deleteOps(d, [third!])]);
    const merged = mergeOutcome(target.def, netChange(chart, placed, target.def));
    expect(merged.notApplied).toEqual([]);
    expect(merged.definition.states[parent.id]!.children.slice(0, 3)).toEqual([first, 'between', second]);
  });
});

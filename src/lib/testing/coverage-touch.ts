import type { MachineDefinition, StateId } from '../model/types.ts';

/**
 * What an edit touched, for incremental coverage (coverage-memo.ts): the ids of the
 * states whose behaviour in a step may differ between two versions of a definition.
 * A step of a recorded run looks only at the states active before it and the states it
 * enters; it stays the same on the new version when none of those is touched.
 *
 * Touched: every state whose record changed, was added or removed (its parent's record
 * changes with it: `children`, `initial`); the parent of a history state that changed
 * (a history state is never entered: its parent is); the source of every transition
 * that changed, was added or removed (a transition is chosen only while its source is
 * active). A rename touches only the renamed state. A change outside
 * states and transitions (machine id, context, root) touches everything: `'all'`.
 */
export type Touched = Set<StateId> | 'all';

const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

export function touchedBy(before: MachineDefinition, after: MachineDefinition): Touched {
  if (before === after) return new Set();
  if (
    before.root !== after.root ||
    before.machineId !== after.machineId ||
    before.format !== after.format ||
    !same(before.context, after.context)
  )
    return 'all';
  const touched = new Set<StateId>();
  const touch = (id: StateId | null | undefined) => {
    if (id !== null && id !== undefined) touched.add(id);
  };
  for (const id of new Set([...Object.keys(before.states), ...Object.keys(after.states)])) {
    const a = before.states[id];
    const b = after.states[id];
    if (a === b || (a && b && same(a, b))) continue;
    touch(id);
    // A history state is never entered itself: what it resumes shows when its parent is.
    // (Adding, removing or moving a state changes its parents' `children`: touched too.)
    if (!a || !b || a.type === 'history' || b.type === 'history') {
      touch(a?.parent);
      touch(b?.parent);
    }
  }
  for (const id of new Set([...Object.keys(before.transitions), ...Object.keys(after.transitions)])) {
    const a = before.transitions[id];
    const b = after.transitions[id];
    if (a === b || (a && b && same(a, b))) continue;
    touch(a?.source);
    touch(b?.source);
  }
  return touched;
}

import type { MachineDefinition } from '../model/types.ts';

/**
 * The states and transitions that differ between two versions of a chart, by id: added
 * or changed in `after` (removed ones are gone, so nothing can show them). What an edit
 * touched, for marking it on the diagram, states first.
 */
export function touchedIds(before: MachineDefinition, after: MachineDefinition): string[] {
  const differs = <T>(was: T | undefined, now: T): boolean =>
    was === undefined || (was !== now && JSON.stringify(was) !== JSON.stringify(now));
  const states = Object.values(after.states)
    .filter((s) => s.id !== after.root && differs(before.states[s.id], s))
    .map((s) => s.id);
  const transitions = Object.values(after.transitions)
    .filter((t) => differs(before.transitions[t.id], t))
    .map((t) => t.id);
  return [...states, ...transitions];
}

import type { Op } from '../model/op-types.ts';
import type { MachineDefinition, StateId, TransitionId } from '../model/types.ts';

/**
 * Dropping the end of a transition's arrow on a state: the target drawn by that arrow
 * (`index` into the transition's targets, one arrow per target) becomes `target`.
 * Nothing changes when the drop names no usable state (gone, the machine's own box,
 * which is the empty space around the states) or when the arrow already ends there.
 * Another target of the same transition is left alone rather than doubled.
 */
export function retargetOps(def: MachineDefinition, id: TransitionId, index: number, target: StateId): Op[] {
  const t = def.transitions[id];
  if (!t || !def.states[target] || target === def.root) return [];
  if (!Number.isInteger(index) || index < 0 || index >= t.targets.length) return [];
  if (t.targets.includes(target)) return [];
  const targets = t.targets.map((x, i) => (i === index ? target : x));
  return [{ type: 'transition.retarget', id, targets }];
}

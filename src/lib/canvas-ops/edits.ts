import { applyOps } from '../model/apply.ts';
import { isWithin, stateOf, transitionsFrom } from '../model/tree.ts';
import type { Op } from '../model/op-types.ts';
import type { MachineDefinition, StateId, Transition, TransitionId } from '../model/types.ts';

/**
 * What the canvas's gestures mean as model ops. Pure: the canvas machine names the
 * gesture, these turn it into ops against the current definition, the document layer
 * applies, shares and undoes them. Every function returns ops that apply in order.
 */

/** `base`, or `base2`, `base3`... : the first key free among `parent`'s children. */
export function freshKey(def: MachineDefinition, parent: StateId, base = 'state'): string {
  const taken = new Set(stateOf(def, parent).children.map((c) => stateOf(def, c).key));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
}

/** A new atomic child; an atomic parent becomes compound; a first child becomes initial. */
export function addChildOps(def: MachineDefinition, parent: StateId, id: StateId, key = freshKey(def, parent)): Op[] {
  const p = stateOf(def, parent);
  const ops: Op[] = [];
  if (p.type === 'atomic' || p.type === 'final') ops.push({ type: 'state.setType', id: parent, stateType: 'compound' });
  ops.push({ type: 'state.add', id, parent, key, stateType: 'atomic', index: null });
  if (p.type !== 'parallel' && p.initial === null) ops.push({ type: 'state.setInitial', id: parent, initial: id });
  return ops;
}

/** A new state right after `sibling` (a child of the root when `sibling` is the root). */
export function addSiblingOps(def: MachineDefinition, sibling: StateId, id: StateId): Op[] {
  const s = stateOf(def, sibling);
  if (s.parent === null) return addChildOps(def, sibling, id);
  const parent = stateOf(def, s.parent);
  const key = freshKey(def, parent.id);
  return [
    { type: 'state.add', id, parent: parent.id, key, stateType: 'atomic', index: parent.children.indexOf(sibling) + 1 },
  ];
}

export function renameOps(def: MachineDefinition, id: StateId, key: string): Op[] {
  const s = def.states[id];
  const trimmed = key.trim();
  if (!s || s.parent === null || trimmed === '' || trimmed === s.key) return [];
  return [{ type: 'state.rename', id, key: trimmed }];
}

/** Why a key cannot be used for `id`, or null when it can. */
export function keyProblem(def: MachineDefinition, id: StateId, key: string): string | null {
  const s = def.states[id];
  const k = key.trim();
  if (!s || s.parent === null) return 'The machine root has no name here.';
  if (k === '') return 'A state needs a name.';
  if (k.includes('.') || k.startsWith('#')) return 'A name cannot contain "." or start with "#".';
  const taken = stateOf(def, s.parent).children.some((c) => c !== id && stateOf(def, c).key === k);
  return taken ? `There is already a state "${k}" here.` : null;
}

/**
 * Deletes the selection: transitions first, then the topmost selected states (deleting
 * a state removes its subtree and its transitions). A compound left empty becomes atomic;
 * a parent whose initial state went picks its first remaining child.
 */
export function deleteOps(def: MachineDefinition, ids: readonly string[]): Op[] {
  const states = ids.filter((id) => def.states[id] && def.states[id].parent !== null);
  const top = states.filter((id) => !states.some((o) => o !== id && isWithin(def, id, o)));
  const ops: Op[] = [];
  for (const id of ids) {
    const t = def.transitions[id];
    if (t && !top.some((s) => isWithin(def, t.source, s) || t.targets.some((x) => isWithin(def, x, s))))
      ops.push({ type: 'transition.delete', id });
  }
  for (const id of top) ops.push({ type: 'state.delete', id });
  const after = applyOps(def, ops);
  const parents = new Set(top.map((id) => stateOf(def, id).parent as StateId));
  for (const p of parents) {
    const node = after.states[p];
    if (!node) continue;
    if (node.children.length === 0 && node.type === 'compound' && node.parent !== null)
      ops.push({ type: 'state.setType', id: p, stateType: 'atomic' });
    else if (node.type === 'compound' && node.initial === null && node.children[0])
      ops.push({ type: 'state.setInitial', id: p, initial: node.children[0] });
  }
  return ops;
}

/** A new transition `event` from `source` to `target`, last in the source's priority order. */
export function connectOps(
  def: MachineDefinition,
  source: StateId,
  target: StateId,
  id: TransitionId,
  event = 'EVENT',
): Op[] {
  const last = transitionsFrom(def, source).at(-1);
  const transition: Transition = {
    id,
    source,
    event,
    guard: null,
    actions: [],
    targets: [target],
    reenter: false,
    description: null,
    meta: null,
    order: (last?.order ?? -1) + 1,
  };
  return [{ type: 'transition.add', transition }];
}

/** Renames a transition's event (named events only; always/after keep their trigger). */
export function setEventOps(def: MachineDefinition, id: TransitionId, event: string): Op[] {
  const t = def.transitions[id];
  const e = event.trim();
  if (!t || e === '' || t.event === e || typeof t.event !== 'string') return [];
  return [{ type: 'transition.update', id, changes: { event: e } }];
}

import { keyPath } from './paths.ts';
import type { MachineDefinition, StateId, StateNode, Transition } from './types.ts';

/** Structural queries over a definition. All pure; ids that do not exist throw. */

export function stateOf(def: MachineDefinition, id: StateId): StateNode {
  const node = def.states[id];
  if (!node) throw new Error(`unknown state ${id}`);
  return node;
}

export function hasState(def: MachineDefinition, id: StateId): boolean {
  return Object.prototype.hasOwnProperty.call(def.states, id);
}

export function hasTransition(def: MachineDefinition, id: string): boolean {
  return Object.prototype.hasOwnProperty.call(def.transitions, id);
}

/** Ancestors from the parent up to the root. */
export function ancestors(def: MachineDefinition, id: StateId): StateId[] {
  const out: StateId[] = [];
  let cur = stateOf(def, id).parent;
  while (cur !== null) {
    out.push(cur);
    cur = stateOf(def, cur).parent;
  }
  return out;
}

/** True when `id` is `ancestor` itself or lies below it. */
export function isWithin(def: MachineDefinition, id: StateId, ancestor: StateId): boolean {
  let cur: StateId | null = id;
  while (cur !== null) {
    if (cur === ancestor) return true;
    cur = stateOf(def, cur).parent;
  }
  return false;
}

/** The subtree rooted at `id` in document (pre-)order, `id` first. */
export function subtree(def: MachineDefinition, id: StateId): StateId[] {
  const out: StateId[] = [];
  const walk = (s: StateId): void => {
    out.push(s);
    for (const c of stateOf(def, s).children) walk(c);
  };
  walk(id);
  return out;
}

/** Keys from just below the root down to `id` (empty for the root). */
export function keyPathOf(def: MachineDefinition, id: StateId): string[] {
  const keys: string[] = [];
  let cur = stateOf(def, id);
  while (cur.parent !== null) {
    keys.unshift(cur.key);
    cur = stateOf(def, cur.parent);
  }
  return keys;
}

/** Keys of `id` below `ancestor` (which must contain it). */
export function relativeKeys(def: MachineDefinition, id: StateId, ancestor: StateId): string[] {
  const keys: string[] = [];
  let cur = stateOf(def, id);
  while (cur.id !== ancestor) {
    keys.unshift(cur.key);
    if (cur.parent === null) throw new Error(`${id} is not within ${ancestor}`);
    cur = stateOf(def, cur.parent);
  }
  return keys;
}

/** The config path of a state: `states.a.states.b` ('' for the root). */
export function configPathOf(def: MachineDefinition, id: StateId): string {
  let path = '';
  for (const key of keyPathOf(def, id)) path = keyPath(keyPath(path, 'states'), key);
  return path;
}

/** The dotted key path people read: `checkout.payment` ('(machine)' for the root). */
export function displayName(def: MachineDefinition, id: StateId): string {
  const keys = keyPathOf(def, id);
  return keys.length === 0 ? '(machine)' : keys.join('.');
}

/** A state's outgoing transitions by priority (order, then id for a stable tie-break). */
export function transitionsFrom(def: MachineDefinition, source: StateId): Transition[] {
  return Object.values(def.transitions)
    .filter((t) => t.source === source)
    .sort(byOrder);
}

export function byOrder(a: Transition, b: Transition): number {
  return a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Outgoing transitions of every state at once (one pass, for whole-definition work). */
export function transitionsBySource(def: MachineDefinition): Map<StateId, Transition[]> {
  const map = new Map<StateId, Transition[]>();
  for (const t of Object.values(def.transitions)) {
    const list = map.get(t.source);
    if (list) list.push(t);
    else map.set(t.source, [t]);
  }
  for (const list of map.values()) list.sort(byOrder);
  return map;
}

/** The state at a dotted key path below the root (`'payment.processing'`; '' is the root), or null. */
export function stateAtPath(def: MachineDefinition, path: string): StateId | null {
  let cur: StateId = def.root;
  if (path === '') return cur;
  for (const key of path.split('.')) {
    const next = stateOf(def, cur).children.find((c) => def.states[c]?.key === key);
    if (next === undefined) return null;
    cur = next;
  }
  return cur;
}

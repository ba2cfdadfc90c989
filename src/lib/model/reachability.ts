import type { MachineDefinition, StateId } from './types.ts';

/**
 * States that can ever be active: start from the root's initial configuration and follow
 * every transition out of a state that can be active. Entering a state enters its
 * ancestors, the default children of compound states, every region of a parallel state
 * (also the sibling regions of a parallel ancestor), and a history state's default.
 */
export function reachableStates(def: MachineDefinition): Set<StateId> {
  const active = new Set<StateId>();
  const queue: StateId[] = [];

  const mark = (id: StateId): void => {
    if (active.has(id)) return;
    active.add(id);
    queue.push(id);
  };

  const defaulted = new Set<StateId>();
  const enterDefaults = (id: StateId): void => {
    const node = def.states[id];
    // Once per state: a history whose fallback is itself (its parent's initial) must not loop.
    if (!node || defaulted.has(id)) return;
    defaulted.add(id);
    mark(id);
    if (node.type === 'parallel') for (const c of node.children) enterDefaults(c);
    else if (node.type === 'history') {
      // A history at the root has no parent to remember and exports no target: it enters nothing.
      if (node.parent === null) return;
      const fallback = node.historyTarget ?? def.states[node.parent]?.initial ?? null;
      if (fallback !== null) enterTarget(fallback);
    } else if (node.initial !== null) enterDefaults(node.initial);
  };

  const enterTarget = (id: StateId): void => {
    let child = id;
    let cur = def.states[id]?.parent ?? null;
    while (cur !== null) {
      const node = def.states[cur];
      if (!node) break;
      mark(cur);
      if (node.type === 'parallel') for (const c of node.children) if (c !== child && !active.has(c)) enterDefaults(c);
      child = cur;
      cur = node.parent;
    }
    enterDefaults(id);
  };

  const bySource = new Map<StateId, StateId[][]>();
  for (const t of Object.values(def.transitions)) {
    const list = bySource.get(t.source) ?? [];
    list.push(t.targets);
    bySource.set(t.source, list);
  }

  enterDefaults(def.root);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i] as StateId;
    for (const targets of bySource.get(id) ?? []) for (const target of targets) enterTarget(target);
  }
  return active;
}

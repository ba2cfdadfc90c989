import { randomIds } from '../model/ids.ts';
import type { Op } from '../model/op-types.ts';
import type { IdGen, MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';

/** A copied state with its subtree and the transitions that stay inside it. */
export interface StateClip {
  states: StateNode[];
  transitions: Transition[];
}

/**
 * Copies a state and its subtree. Transitions come along when their source and every
 * target are inside the subtree, so the clip pastes the same way into this machine or
 * another; a history default target outside it is dropped for the same reason.
 */
export function copyState(def: MachineDefinition, id: StateId): StateClip | null {
  if (id === def.root || !Object.hasOwn(def.states, id)) return null;
  const states: StateNode[] = [];
  const walk = (s: StateId) => {
    const node = def.states[s];
    if (!node) return;
    states.push(structuredClone(node));
    node.children.forEach(walk);
  };
  walk(id);
  const inside = new Set(states.map((s) => s.id));
  for (const s of states) if (s.historyTarget !== null && !inside.has(s.historyTarget)) s.historyTarget = null;
  const transitions = Object.values(def.transitions)
    .filter((t) => inside.has(t.source) && t.targets.every((x) => inside.has(x)))
    .map((t) => structuredClone(t));
  return { states, transitions };
}

/**
 * The ops that paste a clip as the last child of `parent` (an atomic parent becomes
 * compound, with the pasted state initial): every state, transition and invocation gets
 * a new id, and the top state's key is made unique among its new siblings ("name", "name-2", ...).
 */
export function pasteOps(def: MachineDefinition, clip: StateClip, parent: StateId, ids: IdGen = randomIds): Op[] {
  const target = def.states[parent];
  const top = clip.states[0];
  if (!target || !top) return [];
  const stateIds = new Map(clip.states.map((s) => [s.id, ids('state')]));
  const invokeIds = new Map(clip.states.flatMap((s) => s.invoke.map((i) => [i.uid, ids('invocation')])));
  const sid = (s: StateId) => stateIds.get(s) ?? s;
  const taken = new Set(target.children.map((c) => def.states[c]?.key));
  let key = top.key;
  for (let n = 2; taken.has(key); n++) key = `${top.key}-${n}`;
  const states = clip.states.map((s, i) => ({
    ...structuredClone(s),
    id: sid(s.id),
    key: i === 0 ? key : s.key,
    parent: i === 0 ? parent : s.parent === null ? null : sid(s.parent),
    children: s.children.map(sid),
    initial: s.initial === null ? null : sid(s.initial),
    historyTarget: s.historyTarget === null ? null : sid(s.historyTarget),
    invoke: s.invoke.map((inv) => ({ ...structuredClone(inv), uid: invokeIds.get(inv.uid) ?? inv.uid })),
  }));
  const transitions = clip.transitions.map((t) => ({
    ...structuredClone(t),
    id: ids('transition'),
    source: sid(t.source),
    targets: t.targets.map(sid),
    event:
      typeof t.event === 'object' && 'invoke' in t.event
        ? { ...t.event, invoke: invokeIds.get(t.event.invoke) ?? t.event.invoke }
        : t.event,
  }));
  const ops: Op[] = [];
  if (target.type === 'atomic') ops.push({ type: 'state.setType', id: parent, stateType: 'compound' });
  ops.push({ type: 'state.insert', parent, index: null, states, transitions });
  const compound = target.type === 'atomic' || target.type === 'compound';
  if (compound && target.initial === null && top.type !== 'history')
    ops.push({ type: 'state.setInitial', id: parent, initial: sid(top.id) });
  return ops;
}

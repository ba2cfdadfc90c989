import { randomIds } from './ids.ts';
import type { Op } from './op-types.ts';
import { stateOf, transitionsFrom } from './tree.ts';
import type { IdGen, MachineDefinition, StateId, StateType, Transition, TransitionEvent } from './types.ts';

/**
 * Op lists for what people do on the canvas. Ops stay primitive (one fact each, so each
 * has an exact inverse and replays by id); these compose them so the views do not
 * repeat statechart rules, e.g. that a state gaining its first child becomes compound
 * and needs an initial child.
 */

/** `base`, or `base2`, `base3`, ... whichever no child of `parent` uses yet. */
export function uniqueKey(def: MachineDefinition, parent: StateId, base = 'state'): string {
  const taken = new Set(stateOf(def, parent).children.map((c) => stateOf(def, c).key));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
}

/** An order after every existing transition of `source` (lowest priority). */
export function nextOrder(def: MachineDefinition, source: StateId): number {
  const list = transitionsFrom(def, source);
  const last = list[list.length - 1];
  return last === undefined ? 0 : Math.floor(last.order) + 1;
}

export interface NewStateOptions {
  key?: string;
  type?: StateType;
  /** Position among the parent's children; the end when omitted. */
  index?: number;
  ids?: IdGen;
}

/** Add a child: an atomic parent becomes compound, and the first child becomes its initial. */
export function addChildState(
  def: MachineDefinition,
  parent: StateId,
  options: NewStateOptions = {},
): { id: StateId; ops: Op[] } {
  const p = stateOf(def, parent);
  const id = (options.ids ?? randomIds)('state');
  const ops: Op[] = [];
  if (p.type === 'atomic') ops.push({ type: 'state.setType', id: parent, stateType: 'compound' });
  ops.push({
    type: 'state.add',
    id,
    parent,
    key: options.key ?? uniqueKey(def, parent),
    stateType: options.type ?? 'atomic',
    index: options.index ?? null,
  });
  const compound = p.type === 'atomic' || p.type === 'compound';
  if (compound && p.initial === null && (options.type ?? 'atomic') !== 'history')
    ops.push({ type: 'state.setInitial', id: parent, initial: id });
  return { id, ops };
}

/** Add a state right after `sibling`, under the same parent. */
export function addSiblingState(
  def: MachineDefinition,
  sibling: StateId,
  options: Omit<NewStateOptions, 'index'> = {},
): { id: StateId; ops: Op[] } {
  const s = stateOf(def, sibling);
  if (s.parent === null) throw new Error('the machine root has no siblings');
  const index = stateOf(def, s.parent).children.indexOf(sibling) + 1;
  return addChildState(def, s.parent, { ...options, index });
}

/** A `transition.add` op with defaults: no guard or actions, lowest priority. */
export function addTransition(
  def: MachineDefinition,
  source: StateId,
  event: TransitionEvent,
  targets: StateId[],
  options: { ids?: IdGen; order?: number } = {},
): { id: string; op: Op } {
  const transition: Transition = {
    id: (options.ids ?? randomIds)('transition'),
    source,
    event,
    guard: null,
    actions: [],
    targets,
    reenter: false,
    description: null,
    meta: null,
    order: options.order ?? nextOrder(def, source),
  };
  return { id: transition.id, op: { type: 'transition.add', transition } };
}

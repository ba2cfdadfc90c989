import { ownCopy, type Draft } from './draft.ts';
import type { Op, StateFields } from './op-types.ts';
import {
  isHistoryKind,
  isIndex,
  isInvocationList,
  isMeta,
  isName,
  isNullable,
  isOutput,
  isRefList,
  isStateNodeShape,
  isStateType,
  isString,
  isStringList,
  isValidKey,
} from './op-shape.ts';
import { checkNewTransition } from './apply-transition.ts';
import type { StateId, StateNode } from './types.ts';

type OpOf<T extends Op['type']> = Extract<Op, { type: T }>;

function checkKey(d: Draft, key: unknown): asserts key is string {
  if (!isValidKey(key))
    d.fail(
      'invalid_key',
      `invalid state key ${JSON.stringify(key)}: it must be non-empty, without "." and not start with "#"`,
    );
}

function checkSiblingKey(d: Draft, parent: StateId, key: string, self: StateId | null): void {
  for (const c of d.state(parent).children) {
    if (c !== self && d.state(c).key === key)
      d.fail('duplicate_key', `"${d.state(parent).key || '(machine)'}" already has a child "${key}"`);
  }
}

function checkIndex(d: Draft, index: unknown, length: number, nullable: boolean): number {
  if (index === null && nullable) return length;
  if (!isIndex(index) || index > length)
    return d.fail('bad_index', `index ${JSON.stringify(index)} is outside 0..${length}`);
  return index;
}

function insertChild(d: Draft, parent: StateId, child: StateId, index: number): void {
  const p = d.editState(parent);
  p.children = [...p.children.slice(0, index), child, ...p.children.slice(index)];
}

/** A state with nothing in it yet (the root has no parent). */
export function emptyState(id: StateId, parent: StateId | null, key: string, type: StateNode['type']): StateNode {
  return {
    id,
    key,
    parent,
    type,
    initial: null,
    children: [],
    history: type === 'history' ? 'shallow' : null,
    historyTarget: null,
    entry: [],
    exit: [],
    invoke: [],
    tags: [],
    description: null,
    meta: null,
    xstateId: null,
    output: null,
  };
}

export function addState(d: Draft, op: OpOf<'state.add'>): void {
  if (!isName(op.id)) d.fail('invalid', 'a state id must be a non-empty string');
  if (d.hasState(op.id)) d.fail('duplicate_id', `state ${op.id} already exists`);
  d.state(op.parent);
  checkKey(d, op.key);
  checkSiblingKey(d, op.parent, op.key, null);
  if (!isStateType(op.stateType)) d.fail('invalid', `unknown state type ${JSON.stringify(op.stateType)}`);
  const index = checkIndex(d, op.index, d.state(op.parent).children.length, true);
  d.putState(emptyState(op.id, op.parent, op.key, op.stateType));
  insertChild(d, op.parent, op.id, index);
}

export function insertSubtree(d: Draft, op: OpOf<'state.insert'>): void {
  if (!Array.isArray(op.states) || op.states.length === 0 || !Array.isArray(op.transitions))
    d.fail('invalid', 'states must be a non-empty list and transitions a list');
  const byId = new Map<StateId, StateNode>();
  for (const s of op.states) {
    const claimed: unknown = (s as { id?: unknown } | null)?.id;
    if (!isStateNodeShape(s)) d.fail('invalid', `malformed state ${JSON.stringify(claimed ?? null)}`);
    if (d.hasState(s.id) || byId.has(s.id)) d.fail('duplicate_id', `state ${s.id} already exists`);
    byId.set(s.id, structuredClone(s));
  }
  const top = op.states[0] as StateNode;
  d.state(op.parent);
  if (top.parent !== op.parent) d.fail('invalid', `the subtree root's parent must be ${op.parent}`);
  checkSiblingKey(d, op.parent, top.key, null);
  const index = checkIndex(d, op.index, d.state(op.parent).children.length, true);
  // Every state but the top hangs below it exactly once, with consistent parent links.
  let linked = 0;
  for (const s of byId.values()) {
    const keys = new Set<string>();
    for (const c of s.children) {
      const child = byId.get(c);
      if (!child || child.parent !== s.id)
        d.fail('invalid', `child ${c} of ${s.id} is not in the subtree with that parent`);
      if (keys.has(child.key)) d.fail('duplicate_key', `"${s.key}" would have two children "${child.key}"`);
      keys.add(child.key);
      linked++;
    }
    if (s.initial !== null && !s.children.includes(s.initial))
      d.fail('not_a_child', `initial ${s.initial} is not a child of ${s.id}`);
    if (s.historyTarget !== null && !byId.has(s.historyTarget) && !d.hasState(s.historyTarget))
      d.fail('unknown_state', `no state ${s.historyTarget}`);
  }
  if (linked !== byId.size - 1) d.fail('invalid', 'the states do not form one subtree');
  for (const s of byId.values()) d.putState(s);
  insertChild(d, op.parent, top.id, index);
  const seen = new Set<string>();
  for (const t of op.transitions) {
    const fresh = checkNewTransition(d, t);
    if (seen.has(fresh.id)) d.fail('duplicate_id', `transition ${fresh.id} appears twice`);
    seen.add(fresh.id);
    if (!byId.has(fresh.source) && !fresh.targets.some((x) => byId.has(x)))
      d.fail('invalid', `transition ${fresh.id} does not touch the inserted states`);
    d.putTransition(fresh);
  }
}

export function deleteState(d: Draft, op: OpOf<'state.delete'>): void {
  const node = d.state(op.id);
  if (node.parent === null) d.fail('root', 'the machine root cannot be deleted');
  const doomed = new Set<StateId>();
  const walk = (id: StateId): void => {
    doomed.add(id);
    for (const c of d.state(id).children) walk(c);
  };
  walk(op.id);
  // Indexed over the run (Draft.transitionsTouching): a multi-delete does not rescan the chart per state.
  for (const t of d.transitionsTouching(doomed)) d.removeTransition(t.id);
  for (const s of d.historyInto(doomed)) d.editState(s.id).historyTarget = null;
  const parent = d.editState(node.parent);
  parent.children = parent.children.filter((c) => c !== op.id);
  if (parent.initial === op.id) parent.initial = null;
  for (const id of doomed) d.removeState(id);
}

export function renameState(d: Draft, op: OpOf<'state.rename'>): void {
  const node = d.state(op.id);
  if (node.parent === null) d.fail('root', 'the machine root has no key; rename the machine instead');
  checkKey(d, op.key);
  checkSiblingKey(d, node.parent, op.key, op.id);
  d.editState(op.id).key = op.key;
}

export function moveState(d: Draft, op: OpOf<'state.move'>): void {
  const node = d.state(op.id);
  if (node.parent === null) d.fail('root', 'the machine root cannot move');
  d.state(op.parent);
  if (d.within(op.parent, op.id)) d.fail('cycle', `${op.parent} is inside ${op.id}`);
  checkSiblingKey(d, op.parent, node.key, op.id);
  const from = d.editState(node.parent);
  from.children = from.children.filter((c) => c !== op.id);
  if (node.parent !== op.parent && from.initial === op.id) from.initial = null;
  const index = checkIndex(d, op.index, d.state(op.parent).children.length, false);
  insertChild(d, op.parent, op.id, index);
  d.editState(op.id).parent = op.parent;
}

export function setStateType(d: Draft, op: OpOf<'state.setType'>): void {
  d.state(op.id);
  if (!isStateType(op.stateType)) d.fail('invalid', `unknown state type ${JSON.stringify(op.stateType)}`);
  d.editState(op.id).type = op.stateType;
}

export function setInitial(d: Draft, op: OpOf<'state.setInitial'>): void {
  const node = d.state(op.id);
  if (op.initial !== null && !node.children.includes(op.initial))
    d.fail('not_a_child', `${String(op.initial)} is not a child of ${op.id}`);
  d.editState(op.id).initial = op.initial;
}

const FIELD_CHECKS: { [K in keyof StateFields]: (v: unknown) => boolean } = {
  entry: isRefList,
  exit: isRefList,
  invoke: isInvocationList,
  tags: isStringList,
  description: (v) => isNullable(v, isString),
  meta: (v) => isNullable(v, isMeta),
  xstateId: (v) => isNullable(v, isName),
  output: (v) => isNullable(v, isOutput),
  history: (v) => isNullable(v, isHistoryKind),
  historyTarget: (v) => isNullable(v, isName),
};

export function updateState(d: Draft, op: OpOf<'state.update'>): void {
  d.state(op.id);
  if (typeof op.changes !== 'object' || op.changes === null) d.fail('invalid', 'changes must be an object');
  const changes = op.changes as Record<string, unknown>;
  for (const [field, value] of Object.entries(changes)) {
    const check = (FIELD_CHECKS as Record<string, ((v: unknown) => boolean) | undefined>)[field];
    if (!check) d.fail('invalid', `"${field}" is not an editable state field`);
    if (!check(value)) d.fail('invalid', `invalid value for "${field}"`);
  }
  if (op.changes.historyTarget !== undefined && op.changes.historyTarget !== null) d.state(op.changes.historyTarget);
  if (op.changes.invoke !== undefined) {
    const kept = new Set(op.changes.invoke.map((i) => i.uid));
    for (const t of d.allTransitions()) {
      if (t.source === op.id && typeof t.event === 'object' && 'invoke' in t.event && !kept.has(t.event.invoke)) {
        d.fail('in_use', `transition ${t.id} still uses invocation ${t.event.invoke}`);
      }
    }
  }
  Object.assign(d.editState(op.id), ownCopy(changes));
}

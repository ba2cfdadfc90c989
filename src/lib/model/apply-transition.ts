import { ownCopy, type Draft } from './draft.ts';
import type { MachineFields, Op, TransitionFields } from './op-types.ts';
import {
  isEventShape,
  isMeta,
  isName,
  isNullable,
  isOrder,
  isRef,
  isRefList,
  isString,
  isTransitionShape,
} from './op-shape.ts';
import type { StateId, Transition } from './types.ts';

type OpOf<T extends Op['type']> = Extract<Op, { type: T }>;

/** An invoke-outcome trigger must name an invocation of the transition's own state. */
function checkEventSource(d: Draft, event: Transition['event'], source: StateId): void {
  if (typeof event === 'object' && 'invoke' in event && !d.state(source).invoke.some((i) => i.uid === event.invoke)) {
    d.fail('unknown_invocation', `state ${source} has no invocation ${event.invoke}`);
  }
}

function checkTargets(d: Draft, targets: unknown): asserts targets is StateId[] {
  if (!Array.isArray(targets) || !targets.every(isName) || new Set(targets).size !== targets.length) {
    d.fail('invalid', 'targets must be a list of distinct state ids');
  }
  for (const t of targets) d.state(t);
}

/** Checks a whole new transition against the draft; returns a private copy. */
export function checkNewTransition(d: Draft, t: unknown): Transition {
  if (!isTransitionShape(t)) return d.fail('invalid', 'malformed transition');
  if (d.hasTransition(t.id)) d.fail('duplicate_id', `transition ${t.id} already exists`);
  d.state(t.source);
  checkTargets(d, t.targets);
  checkEventSource(d, t.event, t.source);
  return structuredClone(t);
}

export function addTransition(d: Draft, op: OpOf<'transition.add'>): void {
  d.putTransition(checkNewTransition(d, op.transition));
}

const FIELD_CHECKS: { [K in keyof TransitionFields]: (v: unknown) => boolean } = {
  event: isEventShape,
  guard: (v) => isNullable(v, isRef),
  actions: isRefList,
  reenter: (v) => typeof v === 'boolean',
  description: (v) => isNullable(v, isString),
  meta: (v) => isNullable(v, isMeta),
  order: isOrder,
};

export function updateTransition(d: Draft, op: OpOf<'transition.update'>): void {
  const t = d.transition(op.id);
  if (typeof op.changes !== 'object' || op.changes === null) d.fail('invalid', 'changes must be an object');
  const changes = op.changes as Record<string, unknown>;
  for (const [field, value] of Object.entries(changes)) {
    const check = (FIELD_CHECKS as Record<string, ((v: unknown) => boolean) | undefined>)[field];
    if (!check) d.fail('invalid', `"${field}" is not an editable transition field`);
    if (!check(value)) d.fail('invalid', `invalid value for "${field}"`);
  }
  if (op.changes.event !== undefined) checkEventSource(d, op.changes.event, t.source);
  Object.assign(d.editTransition(op.id), ownCopy(changes));
}

export function retarget(d: Draft, op: OpOf<'transition.retarget'>): void {
  const t = d.transition(op.id);
  checkTargets(d, op.targets);
  if (op.source !== undefined) {
    d.state(op.source);
    checkEventSource(d, t.event, op.source);
  }
  const edit = d.editTransition(op.id);
  edit.targets = [...op.targets];
  if (op.source !== undefined) edit.source = op.source;
}

export function deleteTransition(d: Draft, op: OpOf<'transition.delete'>): void {
  d.transition(op.id);
  d.removeTransition(op.id);
}

const MACHINE_CHECKS: { [K in keyof MachineFields]: (v: unknown) => boolean } = {
  machineId: (v) => isNullable(v, isName),
  name: isString,
  context: (v) => isNullable(v, isMeta),
};

export function updateMachine(d: Draft, op: OpOf<'machine.update'>): void {
  if (typeof op.changes !== 'object' || op.changes === null) d.fail('invalid', 'changes must be an object');
  const changes = op.changes as Record<string, unknown>;
  for (const [field, value] of Object.entries(changes)) {
    const check = (MACHINE_CHECKS as Record<string, ((v: unknown) => boolean) | undefined>)[field];
    if (!check) d.fail('invalid', `"${field}" is not an editable machine field`);
    if (!check(value)) d.fail('invalid', `invalid value for "${field}"`);
  }
  Object.assign(d.machine, ownCopy(changes));
}

import { applyOp, applyRun, type DeleteLookup } from './apply.ts';
import type { MachineFields, Op, StateFields, TransitionFields } from './op-types.ts';
import type { MachineDefinition, StateNode, Transition } from './types.ts';

/**
 * The ops that undo `op`, computed against the definition *before* it:
 * `applyOps(applyOp(def, op), invert(def, op))` deep-equals `def`. Throws `OpError` when
 * `op` does not apply to `def`.
 */
export function invert(def: MachineDefinition, op: Op): Op[] {
  applyOp(def, op); // refuse, exactly as apply would, before describing an undo
  return inverseOf(def, op);
}

/** Applies `op` and returns the new definition together with its inverse. */
export function applyWithInverse(def: MachineDefinition, op: Op): { definition: MachineDefinition; inverse: Op[] } {
  const definition = applyOp(def, op);
  return { definition, inverse: inverseOf(def, op) };
}

/**
 * Applies a run of ops and returns the result with the ops that undo the whole run (each
 * op's inverse, last op's first): the same as `invert` and `applyOp` op by op, in one
 * draft (`applyRun`), so a 1,000-op paste copies the records once rather than once per
 * op. Throws the error the op-by-op fold would throw when an op does not apply.
 */
export function invertRun(
  def: MachineDefinition,
  ops: readonly Op[],
): { definition: MachineDefinition; inverse: Op[] } {
  const inverses: Op[][] = [];
  try {
    const definition = applyRun(def, ops, (before, op, lookup) => inverses.push(inverseOf(before, op, lookup)));
    return { definition, inverse: inverses.reverse().flat() };
  } catch {
    // Some op does not apply (or is malformed): fold op by op, which throws what `invert` throws.
  }
  let current = def;
  inverses.length = 0;
  for (const op of ops) {
    const step = applyWithInverse(current, op);
    inverses.push(step.inverse);
    current = step.definition;
  }
  return { definition: current, inverse: inverses.reverse().flat() };
}

function state(def: MachineDefinition, id: string): StateNode {
  const s = def.states[id];
  if (!s) throw new Error(`unknown state ${id}`);
  return s;
}

function transition(def: MachineDefinition, id: string): Transition {
  const t = def.transitions[id];
  if (!t) throw new Error(`unknown transition ${id}`);
  return t;
}

function previous<T extends object, K extends keyof T>(from: T, changes: Partial<Pick<T, K>>): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of Object.keys(changes) as K[]) out[key] = structuredClone(from[key]);
  return out;
}

/** `lookup`: the run's index of what touches a state, so that the inverse of a delete reads no more than it restores. */
function inverseOf(def: MachineDefinition, op: Op, lookup?: DeleteLookup): Op[] {
  switch (op.type) {
    case 'state.add':
      return [{ type: 'state.delete', id: op.id }];
    case 'state.insert':
      return [{ type: 'state.delete', id: (op.states[0] as StateNode).id }];
    case 'state.delete':
      return restoreDeleted(def, op.id, lookup);
    case 'state.rename':
      return [{ type: 'state.rename', id: op.id, key: state(def, op.id).key }];
    case 'state.move': {
      const node = state(def, op.id);
      const from = state(def, node.parent as string);
      const back: Op[] = [{ type: 'state.move', id: op.id, parent: from.id, index: from.children.indexOf(op.id) }];
      if (from.id !== op.parent && from.initial === op.id)
        back.push({ type: 'state.setInitial', id: from.id, initial: op.id });
      return back;
    }
    case 'state.setType':
      return [{ type: 'state.setType', id: op.id, stateType: state(def, op.id).type }];
    case 'state.setInitial':
      return [{ type: 'state.setInitial', id: op.id, initial: state(def, op.id).initial }];
    case 'state.update':
      return [
        {
          type: 'state.update',
          id: op.id,
          changes: previous<StateFields, keyof StateFields>(state(def, op.id), op.changes),
        },
      ];
    case 'transition.add':
      return [{ type: 'transition.delete', id: op.transition.id }];
    case 'transition.update':
      return [
        {
          type: 'transition.update',
          id: op.id,
          changes: previous<TransitionFields, keyof TransitionFields>(transition(def, op.id), op.changes),
        },
      ];
    case 'transition.retarget': {
      const t = transition(def, op.id);
      const back: Op = { type: 'transition.retarget', id: op.id, targets: [...t.targets] };
      if (op.source !== undefined) back.source = t.source;
      return [back];
    }
    case 'transition.delete':
      return [{ type: 'transition.add', transition: structuredClone(transition(def, op.id)) }];
    case 'machine.replace':
      return [{ type: 'machine.replace', definition: def }];
    case 'machine.update': {
      const machine: MachineFields = { machineId: def.machineId, name: def.name, context: def.context };
      return [{ type: 'machine.update', changes: previous<MachineFields, keyof MachineFields>(machine, op.changes) }];
    }
  }
}

/**
 * Re-insert the subtree with every transition that touched it, then what pointed into it.
 * Both lists are in id order, whichever way they were found (`lookup` or a scan).
 */
function restoreDeleted(def: MachineDefinition, id: string, lookup?: DeleteLookup): Op[] {
  const node = state(def, id);
  const parent = state(def, node.parent as string);
  const states: StateNode[] = [];
  const walk = (s: string): void => {
    const n = state(def, s);
    states.push(structuredClone(n));
    for (const c of n.children) walk(c);
  };
  walk(id);
  const inside = new Set(states.map((s) => s.id));
  const touching = lookup
    ? lookup.transitionsTouching(inside)
    : Object.values(def.transitions).filter((t) => inside.has(t.source) || t.targets.some((x) => inside.has(x)));
  const transitions = touching.sort(byId).map((t) => structuredClone(t));
  const ops: Op[] = [
    { type: 'state.insert', parent: parent.id, index: parent.children.indexOf(id), states, transitions },
  ];
  if (parent.initial === id) ops.push({ type: 'state.setInitial', id: parent.id, initial: id });
  const holders = lookup
    ? lookup.historyInto(inside)
    : Object.values(def.states).filter(
        (s) => !inside.has(s.id) && s.historyTarget !== null && inside.has(s.historyTarget),
      );
  for (const s of holders.sort(byId)) {
    ops.push({ type: 'state.update', id: s.id, changes: { historyTarget: s.historyTarget } });
  }
  return ops;
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

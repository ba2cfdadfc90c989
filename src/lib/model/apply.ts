import { addTransition, deleteTransition, retarget, updateMachine, updateTransition } from './apply-transition.ts';
import {
  addState,
  deleteState,
  insertSubtree,
  moveState,
  renameState,
  setInitial,
  setStateType,
  updateState,
} from './apply-state.ts';
import { applyReplace } from './apply-replace.ts';
import { Draft } from './draft.ts';
import { OpError, type Op } from './op-types.ts';
import type { MachineDefinition } from './types.ts';

/**
 * Applies one op and returns a new definition (the input is never changed; untouched
 * states and transitions are shared). Throws `OpError` when the op does not apply.
 */
export function applyOp(def: MachineDefinition, op: Op): MachineDefinition {
  if (typeof op !== 'object' || op === null) throw new OpError('invalid', 'an op must be an object', op);
  if (op.type === 'machine.replace') return guarded(op, () => applyReplace(op));
  const d = new Draft(def, op);
  guarded(op, () => dispatch(d, op));
  return d.result();
}

/** Ops come off the wire: anything malformed that slipped past the shape checks is still the op's fault, so callers see one error type. */
function guarded<T>(op: Op, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof OpError) throw err;
    throw new OpError('invalid', err instanceof Error ? err.message : String(err), op);
  }
}

function dispatch(d: Draft, op: Op): void {
  switch (op.type) {
    case 'state.add':
      addState(d, op);
      break;
    case 'state.insert':
      insertSubtree(d, op);
      break;
    case 'state.delete':
      deleteState(d, op);
      break;
    case 'state.rename':
      renameState(d, op);
      break;
    case 'state.move':
      moveState(d, op);
      break;
    case 'state.setType':
      setStateType(d, op);
      break;
    case 'state.setInitial':
      setInitial(d, op);
      break;
    case 'state.update':
      updateState(d, op);
      break;
    case 'transition.add':
      addTransition(d, op);
      break;
    case 'transition.update':
      updateTransition(d, op);
      break;
    case 'transition.retarget':
      retarget(d, op);
      break;
    case 'transition.delete':
      deleteTransition(d, op);
      break;
    case 'machine.update':
      updateMachine(d, op);
      break;
    default:
      d.fail('invalid', `unknown op type ${JSON.stringify((op as { type?: unknown }).type)}`);
  }
}

/** Applies ops in order; the first that does not apply throws (nothing is half-applied). */
export function applyOps(def: MachineDefinition, ops: readonly Op[]): MachineDefinition {
  return applyRun(def, ops);
}

/** What a delete asks of a definition, answered from the run's index (`Draft`). */
export type DeleteLookup = Pick<Draft, 'transitionsTouching' | 'historyInto'>;

/**
 * `applyOps`, calling `visit(before, op, lookup)` with the definition each op applies to,
 * just before it applies, and the run's draft to ask what touches a state (absent for a
 * replace). `before` is a view of the run's draft: read it during the call (copy what you
 * keep), since the next ops change its records in place. `indexed: false` takes the former
 * path, where each delete scans every record (the bench's and tests' reference).
 */
export function applyRun(
  def: MachineDefinition,
  ops: readonly Op[],
  visit?: (before: MachineDefinition, op: Op, lookup?: DeleteLookup) => void,
  indexed = true,
): MachineDefinition {
  // The same as `ops.reduce(applyOp, def)`, in one draft: a long run (a pasted chart) costs
  // one copy of the records, not one per op. A replace starts over from its own definition.
  let current = def;
  let d: Draft | null = null;
  for (const op of ops) {
    if (typeof op !== 'object' || op === null || op.type === 'machine.replace') {
      const before = d ? d.result() : current;
      current = applyOp(before, op);
      visit?.(before, op);
      d = null;
      continue;
    }
    if (d) d.next(op);
    else d = new Draft(current, op, indexed);
    const draft = d;
    visit?.(draft.result(), op, draft);
    guarded(op, () => dispatch(draft, op));
  }
  return d ? d.result() : current;
}

/** Whether `op` applies to `def` (e.g. a pending op replayed on a newer definition). */
export function canApply(def: MachineDefinition, op: Op): boolean {
  try {
    applyOp(def, op);
    return true;
  } catch (err) {
    if (err instanceof OpError) return false;
    throw err;
  }
}

/**
 * Replays pending ops on a newer definition, dropping those that no longer apply
 * (their state was deleted, their key is now taken, ...). Returns the result and the
 * ops that were kept and dropped.
 */
export function replayOps(
  def: MachineDefinition,
  pending: readonly Op[],
): { definition: MachineDefinition; kept: Op[]; dropped: { op: Op; error: OpError }[] } {
  let current = def;
  const kept: Op[] = [];
  const dropped: { op: Op; error: OpError }[] = [];
  for (const op of pending) {
    try {
      current = applyOp(current, op);
      kept.push(op);
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
      dropped.push({ op, error: err });
    }
  }
  return { definition: current, kept, dropped };
}

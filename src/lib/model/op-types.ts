import type {
  JsonObject,
  MachineDefinition,
  StateId,
  StateNode,
  StateType,
  Transition,
  TransitionId,
} from './types.ts';

/**
 * Editing operations: plain JSON data, a closed union. Every op names states and
 * transitions by stable id only, so a pending op replayed on a newer definition keeps its
 * intent; `canApply` says whether it still applies (CONTEXT.md).
 */

/** State fields edited in place by `state.update`. */
export type StateFields = Pick<
  StateNode,
  'entry' | 'exit' | 'invoke' | 'tags' | 'description' | 'meta' | 'xstateId' | 'output' | 'history' | 'historyTarget'
>;

/** Transition fields edited in place by `transition.update`. */
export type TransitionFields = Pick<
  Transition,
  'event' | 'guard' | 'actions' | 'reenter' | 'description' | 'meta' | 'order'
>;

export type MachineFields = { machineId: string | null; name: string; context: JsonObject | null };

export type Op =
  /** A new empty state under `parent`, at `index` among its children (end when null). */
  | { type: 'state.add'; id: StateId; parent: StateId; key: string; stateType: StateType; index: number | null }
  /**
   * Insert a whole subtree: `states[0]` is its root (its `parent` must equal `parent`),
   * the rest are its descendants; `transitions` may touch any state. The inverse of
   * `state.delete`, and how paste works (with fresh ids).
   */
  | { type: 'state.insert'; parent: StateId; index: number | null; states: StateNode[]; transitions: Transition[] }
  /** Remove a state, its subtree and every transition from or into it. */
  | { type: 'state.delete'; id: StateId }
  | { type: 'state.rename'; id: StateId; key: string }
  /** Reparent and/or reorder: `index` is the position among the new parent's children after removal. */
  | { type: 'state.move'; id: StateId; parent: StateId; index: number }
  | { type: 'state.setType'; id: StateId; stateType: StateType }
  | { type: 'state.setInitial'; id: StateId; initial: StateId | null }
  | { type: 'state.update'; id: StateId; changes: Partial<StateFields> }
  | { type: 'transition.add'; transition: Transition }
  | { type: 'transition.update'; id: TransitionId; changes: Partial<TransitionFields> }
  /** Change where a transition goes (and optionally where it starts). */
  | { type: 'transition.retarget'; id: TransitionId; targets: StateId[]; source?: StateId }
  | { type: 'transition.delete'; id: TransitionId }
  | { type: 'machine.update'; changes: Partial<MachineFields> }
  /** The whole definition at once (a machine inserted with content; apply-replace.ts). */
  | { type: 'machine.replace'; definition: MachineDefinition };

export type OpType = Op['type'];

export type OpErrorCode =
  | 'unknown_state'
  | 'unknown_transition'
  | 'unknown_invocation'
  | 'duplicate_id'
  | 'duplicate_key'
  | 'invalid_key'
  | 'cycle'
  | 'root'
  | 'not_a_child'
  | 'bad_index'
  | 'in_use'
  | 'invalid';

/** Why an op does not apply to a definition; `code` is stable for callers to branch on. */
export class OpError extends Error {
  readonly code: OpErrorCode;
  readonly op: Op;
  constructor(code: OpErrorCode, message: string, op: Op) {
    super(`${op.type}: ${message}`);
    this.name = 'OpError';
    this.code = code;
    this.op = op;
  }
}

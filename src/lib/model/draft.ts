import { OpError, type Op, type OpErrorCode } from './op-types.ts';
import type { MachineDefinition, StateId, StateNode, Transition, TransitionId } from './types.ts';

/**
 * Copy-on-write view of a definition while one op applies: records are copied once,
 * each node at most once, and the input definition is never touched. A run of ops can
 * share one draft (`next`): the records are still copied once for the whole run (not
 * once per op, which made a 1,000-state paste quadratic), and each node at most once per op.
 */
export class Draft {
  private states: Record<StateId, StateNode> | null = null;
  private transitions: Record<TransitionId, Transition> | null = null;
  private readonly copiedStates = new Set<StateId>();
  private readonly copiedTransitions = new Set<TransitionId>();
  machine: Pick<MachineDefinition, 'machineId' | 'name' | 'context'>;

  constructor(
    readonly base: MachineDefinition,
    private op: Op,
  ) {
    this.machine = { machineId: base.machineId, name: base.name, context: base.context };
  }

  /**
   * Go on to the next op of a run. Nodes this draft copied or put are shared again as far
   * as the next op knows (it copies before it changes one), as after `result()`.
   */
  next(op: Op): void {
    this.op = op;
    this.copiedStates.clear();
    this.copiedTransitions.clear();
  }

  fail(code: OpErrorCode, message: string): never {
    throw new OpError(code, message, this.op);
  }

  hasState(id: unknown): boolean {
    return typeof id === 'string' && Object.prototype.hasOwnProperty.call(this.states ?? this.base.states, id);
  }

  hasTransition(id: unknown): boolean {
    return (
      typeof id === 'string' && Object.prototype.hasOwnProperty.call(this.transitions ?? this.base.transitions, id)
    );
  }

  state(id: unknown): StateNode {
    if (!this.hasState(id)) return this.fail('unknown_state', `no state ${JSON.stringify(id)}`);
    return (this.states ?? this.base.states)[id as StateId] as StateNode;
  }

  transition(id: unknown): Transition {
    if (!this.hasTransition(id)) return this.fail('unknown_transition', `no transition ${JSON.stringify(id)}`);
    return (this.transitions ?? this.base.transitions)[id as TransitionId] as Transition;
  }

  /** A writable copy of a state, made once per op. */
  editState(id: StateId): StateNode {
    const node = this.state(id);
    this.states ??= { ...this.base.states };
    if (this.copiedStates.has(id)) return node;
    const copy = { ...node };
    this.states[id] = copy;
    this.copiedStates.add(id);
    return copy;
  }

  editTransition(id: TransitionId): Transition {
    const t = this.transition(id);
    this.transitions ??= { ...this.base.transitions };
    if (this.copiedTransitions.has(id)) return t;
    const copy = { ...t };
    this.transitions[id] = copy;
    this.copiedTransitions.add(id);
    return copy;
  }

  putState(node: StateNode): void {
    this.states ??= { ...this.base.states };
    this.states[node.id] = node;
    this.copiedStates.add(node.id);
  }

  putTransition(t: Transition): void {
    this.transitions ??= { ...this.base.transitions };
    this.transitions[t.id] = t;
    this.copiedTransitions.add(t.id);
  }

  removeState(id: StateId): void {
    this.states ??= { ...this.base.states };
    delete this.states[id];
  }

  removeTransition(id: TransitionId): void {
    this.transitions ??= { ...this.base.transitions };
    delete this.transitions[id];
  }

  allStates(): StateNode[] {
    return Object.values(this.states ?? this.base.states);
  }

  allTransitions(): Transition[] {
    return Object.values(this.transitions ?? this.base.transitions);
  }

  /** True when `id` is `ancestor` or below it. */
  within(id: StateId, ancestor: StateId): boolean {
    let cur: StateId | null = id;
    while (cur !== null) {
      if (cur === ancestor) return true;
      cur = this.state(cur).parent;
    }
    return false;
  }

  result(): MachineDefinition {
    return {
      format: 1,
      machineId: this.machine.machineId,
      name: this.machine.name,
      context: this.machine.context,
      root: this.base.root,
      states: this.states ?? this.base.states,
      transitions: this.transitions ?? this.base.transitions,
    };
  }
}

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
  /**
   * Who touches what, for deletes (`transitionsTouching`, `historyInto`): built on the
   * first delete of a run and kept over the run, so that deleting k states of an n-state
   * chart costs one O(n) pass, not one per delete. Both over-approximate: a record changed
   * since the build is indexed again under its new ends at the next question (the old
   * entries stay), and every answer is checked against the current records.
   */
  private touching: Map<StateId, Set<TransitionId>> | null = null;
  /** Transitions put or edited since `touching` was last brought up to date. */
  private readonly touchedSince = new Set<TransitionId>();
  /** States by the history target they had when indexed. */
  private historyOf: Map<StateId, Set<StateId>> | null = null;
  /** States put or edited since `historyOf` was last brought up to date. */
  private readonly editedSince = new Set<StateId>();

  constructor(
    readonly base: MachineDefinition,
    private op: Op,
    /** False: answer delete questions by scanning every record (the former path; the bench's and tests' reference). */
    private readonly indexed = true,
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
    if (this.historyOf) this.editedSince.add(id);
    if (this.copiedStates.has(id)) return node;
    const copy = { ...node };
    this.states[id] = copy;
    this.copiedStates.add(id);
    return copy;
  }

  editTransition(id: TransitionId): Transition {
    const t = this.transition(id);
    this.transitions ??= { ...this.base.transitions };
    if (this.touching) this.touchedSince.add(id);
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
    if (this.historyOf) this.editedSince.add(node.id);
  }

  putTransition(t: Transition): void {
    this.transitions ??= { ...this.base.transitions };
    this.transitions[t.id] = t;
    this.copiedTransitions.add(t.id);
    if (this.touching) this.touchedSince.add(t.id);
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

  /** The transitions whose source or a target is in `ids` (each once, in no set order). */
  transitionsTouching(ids: ReadonlySet<StateId>): Transition[] {
    const touches = (t: Transition) => ids.has(t.source) || t.targets.some((x) => ids.has(x));
    if (!this.indexed) return this.allTransitions().filter(touches);
    if (!this.touching) {
      this.touching = new Map();
      this.touchedSince.clear();
      for (const t of this.allTransitions()) indexTransition(this.touching, t);
    }
    for (const tid of this.touchedSince)
      if (this.hasTransition(tid)) indexTransition(this.touching, this.transition(tid));
    this.touchedSince.clear();
    const found = new Set<TransitionId>();
    for (const id of ids) for (const tid of this.touching.get(id) ?? []) found.add(tid);
    const out: Transition[] = [];
    for (const tid of found)
      if (this.hasTransition(tid) && touches(this.transition(tid))) out.push(this.transition(tid));
    return out;
  }

  /** The states outside `ids` whose history target is in `ids` (each once, in no set order). */
  historyInto(ids: ReadonlySet<StateId>): StateNode[] {
    const into = (s: StateNode) => !ids.has(s.id) && s.historyTarget !== null && ids.has(s.historyTarget);
    if (!this.indexed) return this.allStates().filter(into);
    if (!this.historyOf) {
      this.historyOf = new Map();
      this.editedSince.clear();
      for (const s of this.allStates()) indexHistory(this.historyOf, s);
    }
    for (const id of this.editedSince) if (this.hasState(id)) indexHistory(this.historyOf, this.state(id));
    this.editedSince.clear();
    const found = new Set<StateId>();
    for (const id of ids) for (const holder of this.historyOf.get(id) ?? []) found.add(holder);
    const out: StateNode[] = [];
    for (const id of found) if (this.hasState(id) && into(this.state(id))) out.push(this.state(id));
    return out;
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

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

function indexTransition(map: Map<StateId, Set<TransitionId>>, t: Transition): void {
  addTo(map, t.source, t.id);
  for (const x of t.targets) addTo(map, x, t.id);
}

function indexHistory(map: Map<StateId, Set<StateId>>, s: StateNode): void {
  if (s.historyTarget !== null) addTo(map, s.historyTarget, s.id);
}

/**
 * An op's changes as the document's own values: objects and lists are copied (the op that
 * carried them stays the caller's), strings, numbers, booleans and null are taken as they
 * are, which is most edits (a description, a name) and spares a structured clone per op.
 */
export function ownCopy<T extends object>(changes: T): T {
  const out = {} as Record<string, unknown>;
  for (const [field, value] of Object.entries(changes))
    out[field] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
  return out as T;
}

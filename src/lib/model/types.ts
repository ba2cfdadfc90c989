/**
 * Chartroom's statechart model: a normalised, JSON-serialisable definition built for
 * concurrent editing. States and transitions live in flat records keyed by stable ids
 * that never change on rename or move, so an operation that names ids still means the
 * same thing after other people's edits land (see CONTEXT.md).
 *
 * Conventions that keep definitions deep-equal across JSON/jsonb round trips:
 * - entity fields that may be unset are `null`, never `undefined` or absent;
 * - lists are always present (empty when unused);
 * - small value objects (ActionRef, GuardRef, Invocation) omit unset optional keys.
 */

export type StateId = string;
export type TransitionId = string;
/** Stable handle of one invocation inside its state; not XState's invoke `id`. */
export type InvocationUid = string;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * `atomic` and `compound` are stored rather than inferred so an edit cannot change a
 * state's kind by accident; validation reports an atomic state with children or a
 * compound one without.
 */
export type StateType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
export type HistoryKind = 'shallow' | 'deep';

/** A named action with optional params: XState's `'name'` or `{ type, params }`. */
export interface ActionRef {
  type: string;
  params?: Json;
}

/** A named guard with optional params: XState's `guard: 'name'` or `{ type, params }`. */
export interface GuardRef {
  type: string;
  params?: Json;
}

/** An invoked actor, by name (`src`); its onDone/onError/onSnapshot are transitions. */
export interface Invocation {
  uid: InvocationUid;
  src: string;
  /** XState's invoke `id` (the child actor's id), when given. */
  id?: string;
  systemId?: string;
  input?: Json;
}

/** Delays are milliseconds or the name of a delay provided by `setup({ delays })`. */
export type Delay = number | string;

/**
 * What triggers a transition:
 * - a string: a named event (`'PAY'`, `'auth.*'`, `'*'`), from `on`;
 * - `{ always: true }`: eventless, from `always`;
 * - `{ after: delay }`: delayed, from `after`;
 * - `{ done: true }`: the state's own `onDone` (a compound/parallel state finished);
 * - `{ invoke, outcome }`: an invocation's `onDone` / `onError` / `onSnapshot`.
 */
export type TransitionEvent =
  string | { always: true } | { after: Delay } | { done: true } | { invoke: InvocationUid; outcome: InvokeOutcome };

export type InvokeOutcome = 'done' | 'error' | 'snapshot';

export interface StateNode {
  id: StateId;
  /** The key among its siblings (the name people see); '' for the root. */
  key: string;
  /** null only for the root. */
  parent: StateId | null;
  type: StateType;
  /** The initial child (compound states). Always one of `children` or null. */
  initial: StateId | null;
  /** Child states in document order. */
  children: StateId[];
  /** For history states: shallow or deep (null for every other type). */
  history: HistoryKind | null;
  /** For history states: the default target when there is no history yet. */
  historyTarget: StateId | null;
  entry: ActionRef[];
  exit: ActionRef[];
  invoke: Invocation[];
  tags: string[];
  description: string | null;
  meta: JsonObject | null;
  /** An explicit XState `id` (targeted as `#id`); null when the config gives none. */
  xstateId: string | null;
  /** A final state's `output`, boxed so that an output of `null` stays expressible. */
  output: { value: Json } | null;
}

export interface Transition {
  id: TransitionId;
  source: StateId;
  event: TransitionEvent;
  guard: GuardRef | null;
  actions: ActionRef[];
  /** Targets in order; empty for a targetless transition (actions only). */
  targets: StateId[];
  reenter: boolean;
  description: string | null;
  meta: JsonObject | null;
  /**
   * Priority among the source's transitions: lower first. For one event, lower order
   * is tried first (XState's array order); it also orders `on` keys on export.
   * Any finite number, so an insertion between two can pick a value between them.
   */
  order: number;
}

export interface MachineDefinition {
  /** Model format, for migrations of stored definitions. */
  format: 1;
  /** The XState machine `id`; null when the config gives none. */
  machineId: string | null;
  /** Display name (defaults to the machine id on import). */
  name: string;
  /** The machine's JSON `context`, when given. */
  context: JsonObject | null;
  root: StateId;
  states: Record<StateId, StateNode>;
  transitions: Record<TransitionId, Transition>;
}

/** An XState v5 machine config as plain JSON (what `importXState` reads). */
export type XStateConfig = JsonObject;

export type IdKind = 'state' | 'transition' | 'invocation';
/** Makes fresh ids; injected so tests can be deterministic. */
export type IdGen = (kind: IdKind) => string;

export type Severity = 'error' | 'warning';

/** A validation finding. `path` is in config terms, e.g. `states.checkout.on.PAY[0].target`. */
export interface Issue {
  severity: Severity;
  path: string;
  message: string;
  /** Source position when the issue came from JSON text (1-based line and column). */
  at?: { offset: number; line: number; column: number; end: number };
}

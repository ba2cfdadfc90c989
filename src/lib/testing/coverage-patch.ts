import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { byOrder } from '../model/tree.ts';
import type { ActionRef, MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';
import { TAKEN } from './graph.ts';

/**
 * The coverage machine (coverage-memo.ts) moved to the next version in place, for the
 * edits people make most, instead of building a new XState machine (building a
 * 200-state chart is most of what coverage after an edit costs). Only what a fresh
 * `createMachine` would give differently is changed, on the machine's own state nodes:
 *
 * - a transition whose target, guard, actions or reenter changed (same id, source,
 *   event and order; a named event or an eventless one): its formatted transition object
 *   is updated where XState keeps it, so every lookup XState memoised still finds it;
 * - a transition added, removed, or moved to another source, event or order (named
 *   events without wildcards, and eventless ones): the list XState keeps for that state
 *   and event is made again from the new version, reusing the formatted objects it had.
 *   XState memoises each state's candidates per event type on the state node itself, out
 *   of reach; so that state's `next` is pointed at a fresh view of the node (an object
 *   whose prototype is the node: the same fields, an empty memo), which reads the new list;
 * - a state renamed (only its key changed): the keys, paths and ids of its subtree and
 *   its parent's child table, as XState derives them;
 * - a new atomic child, bare (no actions, invocations or transitions), last in a
 *   compound parent: a state node made as XState makes one, and document order renumbered.
 *
 * A changed transition naming a guard or action the machine has no implementation for,
 * and anything else (a moved state, a transition on a timer, an invocation or `onDone`,
 * the same under a renamed state, whose event names carry ids) answers null: build anew.
 * The incremental property test checks the result against the full recompute.
 */

export const ENTERED = '\u0000entered';

/** What the coverage machine needs besides itself: the id of each of its state nodes. */
export interface Built {
  machine: AnyStateMachine;
  idOf: Map<AnyStateNode, StateId>;
}

interface Formatted {
  target: AnyStateNode[] | undefined;
  guard: unknown;
  actions: unknown[];
  reenter: boolean;
  eventType: string;
  source?: AnyStateNode;
  toJSON?: () => unknown;
}

/** XState's descriptor for eventless transitions; a group key here. */
const ALWAYS = '';

/** The list a transition sits in on its source (its event, or ALWAYS), or null for kinds not regrouped here. */
function groupOf(t: Transition): string | null {
  if (typeof t.event === 'string') return t.event === ALWAYS || t.event.includes('*') ? null : t.event;
  return 'always' in t.event ? ALWAYS : null;
}

const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);
const ref = (a: ActionRef): unknown => (a.params === undefined ? a.type : { type: a.type, params: a.params });

function changedTransition(a: Transition, b: Transition): boolean {
  return (
    a.source !== b.source ||
    !same(a.event, b.event) ||
    a.order !== b.order ||
    !(typeof b.event === 'string' || 'always' in b.event)
  );
}

/** The formatted transition of definition transition `id` on `node`, found by its marker action. */
function formattedOf(node: AnyStateNode, id: string): Formatted | null {
  const lists: Formatted[][] = [...(node.transitions as unknown as Map<string, Formatted[]>).values()];
  if (node.always) lists.push(node.always as unknown as Formatted[]);
  for (const list of lists)
    for (const t of list) {
      const marker = t.actions[0] as { type?: string; params?: unknown } | undefined;
      if (marker?.type === TAKEN && marker.params === id) return t;
    }
  return null;
}

/** A subtree whose event names carry its ids (timers, invocations, done events) cannot be renamed in place. */
function renameable(def: MachineDefinition, id: StateId): boolean {
  const inside = new Set<StateId>();
  const walk = (s: StateId) => {
    inside.add(s);
    for (const c of def.states[s]?.children ?? []) walk(c);
  };
  walk(id);
  for (const s of inside) if ((def.states[s]?.invoke.length ?? 0) > 0) return false;
  return !Object.values(def.transitions).some(
    (t) => inside.has(t.source) && typeof t.event !== 'string' && !('always' in t.event),
  );
}

/**
 * Whether the machine has an implementation for every guard and action `t` names: they
 * are made for the names the version it was built from used, so a name new to the
 * chart (a guard no transition had) needs a new machine.
 */
function implemented(machine: AnyStateMachine, t: Transition): boolean {
  const { guards, actions } = machine.implementations as {
    guards: Record<string, unknown>;
    actions: Record<string, unknown>;
  };
  return (
    (t.guard === null || Object.hasOwn(guards, t.guard.type)) && t.actions.every((a) => Object.hasOwn(actions, a.type))
  );
}

const bareChild = (s: StateNode): boolean =>
  s.type === 'atomic' &&
  s.children.length === 0 &&
  s.entry.length === 0 &&
  s.exit.length === 0 &&
  s.invoke.length === 0 &&
  s.tags.length === 0 &&
  s.description === null &&
  s.meta === null &&
  s.xstateId === null &&
  s.output === null;

/**
 * Moves `built` (the machine of `before`) to `after` in place and answers it, or answers
 * null, untouched, when the edit is not one of those above.
 */
export function patchBuilt(built: Built, before: MachineDefinition, after: MachineDefinition): Built | null {
  if (
    before.root !== after.root ||
    before.machineId !== after.machineId ||
    before.format !== after.format ||
    !same(before.context, after.context)
  )
    return null;
  const nodeOf = new Map<StateId, AnyStateNode>();
  for (const [n, id] of built.idOf) nodeOf.set(id, n);
  const renames: StateNode[] = [];
  const hasHistoryTarget = Object.values(after.states).some((s) => s.historyTarget !== null);
  const added: StateNode[] = [];
  const parents = new Map<StateId, StateNode>();
  for (const id of new Set([...Object.keys(before.states), ...Object.keys(after.states)])) {
    const a = before.states[id];
    const b = after.states[id];
    if (a === b || (a && b && same(a, b))) continue;
    if (!b) return null;
    if (!a) {
      if (!bareChild(b)) return null;
      added.push(b);
      continue;
    }
    if (same({ ...a, key: b.key }, b)) {
      // A history state's default target is resolved from its config's keys each time: no renames then.
      if (a.parent === null || !renameable(after, id) || hasHistoryTarget) return null;
      renames.push(b);
    } else if (same({ ...a, children: b.children }, b)) parents.set(id, b);
    else return null;
  }
  // A parent may change only by new children appended; each new child's parent so changed.
  for (const p of parents.values()) {
    const had = before.states[p.id]?.children ?? [];
    if (p.type !== 'compound' || had.length === 0 || !same(p.children.slice(0, had.length), had)) return null;
    for (const c of p.children.slice(had.length)) if (!added.some((s) => s.id === c)) return null;
  }
  if (added.some((s) => s.parent === null || !parents.has(s.parent))) return null;
  const changed: Transition[] = [];
  /** Lists made again: source state -> events (ALWAYS for eventless). */
  const regroup = new Map<StateId, Set<string>>();
  const mark = (t: Transition): boolean => {
    const group = groupOf(t);
    if (group === null || !nodeOf.has(t.source)) return false;
    const events = regroup.get(t.source) ?? new Set<string>();
    regroup.set(t.source, events.add(group));
    return true;
  };
  for (const id of new Set([...Object.keys(before.transitions), ...Object.keys(after.transitions)])) {
    const a = before.transitions[id];
    const b = after.transitions[id];
    if (a === b || (a && b && same(a, b))) continue;
    if (b && (b.targets.some((t) => !nodeOf.has(t)) || !implemented(built.machine, b))) return null;
    if (a && b && !changedTransition(a, b)) changed.push(b);
    else if ((a && !mark(a)) || (b && !mark(b))) return null;
  }
  // A renamed state's transitions are found by its new key in a fresh build; keep those apart.
  if (renames.some((s) => regroup.has(s.id))) return null;
  // Every check passed: nothing above changed the machine; from here on it is moved.
  for (const t of changed) {
    const f = formattedOf(nodeOf.get(t.source) as AnyStateNode, t.id);
    if (!f) throw new Error(`coverage machine: transition ${t.id} not found`);
    f.target = t.targets.length > 0 ? t.targets.map((id) => nodeOf.get(id) as AnyStateNode) : undefined;
    f.guard = t.guard === null ? undefined : ref(t.guard);
    f.actions = [{ type: TAKEN, params: t.id }, ...t.actions.map(ref)];
    f.reenter = t.reenter;
  }
  if (regroup.size > 0) regroupAll(after, regroup, nodeOf);
  for (const s of renames) {
    // The parent's initial transition is formatted from its config's key when first asked: ask before the key changes.
    void (nodeOf.get(s.parent as StateId) as AnyStateNode).initial;
    rename(built.machine, nodeOf.get(s.id) as AnyStateNode, s.key);
  }
  for (const s of added) {
    const parent = nodeOf.get(s.parent as StateId) as AnyStateNode;
    const Node = parent.constructor as new (config: unknown, options: unknown) => AnyStateNode;
    const node = new Node(
      { entry: [{ type: ENTERED, params: s.id }] },
      {
        _parent: parent,
        _key: s.key,
        _machine: built.machine,
      },
    );
    (node as unknown as { _initialize(): void })._initialize();
    nodeOf.set(s.id, node);
    built.idOf.set(node, s.id);
  }
  for (const p of parents.values()) {
    const node = nodeOf.get(p.id) as AnyStateNode;
    const states: Record<string, AnyStateNode> = {};
    for (const c of p.children) states[after.states[c]?.key as string] = nodeOf.get(c) as AnyStateNode;
    node.states = states;
  }
  if (added.length > 0) renumber(built.machine);
  built.machine.states = built.machine.root.states;
  return built;
}

/** Each listed (state, event) list made again from `after`, in a fresh build's order; each such state gets a fresh view. */
function regroupAll(after: MachineDefinition, regroup: Map<StateId, Set<string>>, nodeOf: Map<StateId, AnyStateNode>) {
  const bySource = new Map<StateId, Transition[]>();
  for (const t of Object.values(after.transitions))
    if (regroup.has(t.source)) bySource.set(t.source, [...(bySource.get(t.source) ?? []), t]);
  for (const [source, events] of regroup) {
    const node = nodeOf.get(source) as AnyStateNode;
    const all = (bySource.get(source) ?? []).sort(byOrder);
    const map = node.transitions as unknown as Map<string, Formatted[]>;
    for (const event of events) {
      const list = all
        .filter((t) => groupOf(t) === event)
        .map((t) => {
          const had = formattedOf(node, t.id);
          return had && had.eventType === event ? had : formatted(node, event, t, nodeOf);
        });
      if (event === ALWAYS) (node as { always?: unknown }).always = list.length > 0 ? list : undefined;
      else if (list.length > 0) map.set(event, list);
      else map.delete(event);
    }
    if (events.size > (events.has(ALWAYS) ? 1 : 0)) freshView(node);
  }
}

/** A transition as XState formats one from a config (markers included, as markTransitions adds them). */
function formatted(node: AnyStateNode, event: string, t: Transition, nodeOf: Map<StateId, AnyStateNode>): Formatted {
  const target = t.targets.length > 0 ? t.targets.map((id) => nodeOf.get(id) as AnyStateNode) : undefined;
  const f: Formatted = {
    target,
    guard: t.guard === null ? undefined : ref(t.guard),
    actions: [{ type: TAKEN, params: t.id }, ...t.actions.map(ref)],
    reenter: t.reenter,
    eventType: event,
    source: node,
    toJSON: () => ({ ...f, source: `#${node.id}`, target: f.target?.map((n) => `#${n.id}`) }),
  };
  return f;
}

/**
 * `node.next` reads its candidates through a new object whose prototype is the node: the
 * same fields (the transitions just made again included), and nothing memoised yet.
 */
function freshView(node: AnyStateNode): void {
  // `next` is internal to XState (left out of its types): typed here by what it is called with.
  type Next = (this: AnyStateNode, snapshot: unknown, event: unknown) => unknown;
  const view: AnyStateNode = Object.create(node) as AnyStateNode;
  const next = (Object.getPrototypeOf(node) as { next: Next }).next;
  Object.defineProperty(node, 'next', {
    configurable: true,
    writable: true,
    value: (snapshot: unknown, event: unknown) => next.call(view, snapshot, event),
  });
}

/** A new key for `node`: its parent's table keeps the order; its subtree's paths and ids follow. */
function rename(machine: AnyStateMachine, node: AnyStateNode, key: string): void {
  const parent = node.parent as AnyStateNode;
  const states: Record<string, AnyStateNode> = {};
  for (const [k, n] of Object.entries(parent.states as Record<string, AnyStateNode>)) states[n === node ? key : k] = n;
  parent.states = states;
  node.key = key;
  const idMap = (machine as unknown as { idMap: Map<string, AnyStateNode> }).idMap;
  const walk = (n: AnyStateNode) => {
    idMap.delete(n.id);
    n.path = [...(n.parent?.path ?? []), n.key];
    n.id = n.config.id ?? [machine.id, ...n.path].join('.');
    idMap.set(n.id, n);
    for (const c of Object.values(n.states as Record<string, AnyStateNode>)) walk(c);
  };
  walk(node);
}

/** Document order again (XState numbers nodes as it makes them; a new child came last). */
function renumber(machine: AnyStateMachine): void {
  const idMap = (machine as unknown as { idMap: Map<string, AnyStateNode> }).idMap;
  idMap.clear();
  const walk = (n: AnyStateNode) => {
    n.order = idMap.size;
    idMap.set(n.id, n);
    for (const c of Object.values(n.states as Record<string, AnyStateNode>)) walk(c);
  };
  walk(machine.root);
}

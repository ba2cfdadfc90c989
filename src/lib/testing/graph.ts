import type { StateValue, AnyMachineSnapshot, AnyStateMachine, AnyStateNode } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import type { MachineDefinition, TransitionId } from '../model/types.ts';
import { buildSimMachine, type SimHooks } from '../simulation/build.ts';
import { activePathsOf } from '../simulation/simulator.ts';
import type { GuardValues } from '../simulation/types.ts';
import { PathLimitError } from './types.ts';

/**
 * The reachable graph of a definition, for path generation: vertices are configurations
 * (state value, history, status), edges are the events a person could send there, each
 * under one set of guard outcomes. The machine is the simulation's (build.ts): nothing
 * of the definition runs; a guard answers the outcome the edge assumes. The traversal is
 * `xstate/graph`'s adjacency map over that machine, with our events and serialisation.
 *
 * Each transition of the definition carries a marker action naming its id, so an edge
 * knows which transitions it took; a recording guard table says which guards XState
 * actually asked about, and those (with their outcomes) are the edge's assumptions.
 */

export const TAKEN = '\u0000taken';

export interface GraphEvent {
  type: string;
  /** The outcome of every guard this event may meet (XState asks only some of them). */
  assume: GuardValues;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'event' | 'time';
  type: string;
  /** Outcomes of the guards XState evaluated on this edge. */
  guards: GuardValues;
  taken: TransitionId[];
}

export interface GraphVertex {
  key: string;
  activePaths: string[];
  done: boolean;
}

export interface TestGraph {
  start: GraphVertex;
  vertices: Map<string, GraphVertex>;
  /** Outgoing edges by vertex key, in a stable order. */
  out: Map<string, GraphEdge[]>;
  edges: GraphEdge[];
  /** Ids of the definition's transitions (every one a path could take). */
  transitionIds: TransitionId[];
}

type Adjacency = Record<
  string,
  { state: AnyMachineSnapshot; transitions: Record<string, { event: GraphEvent; state: AnyMachineSnapshot }> }
>;

export interface GraphOptions {
  /** Most configurations explored before giving up (default 5,000). */
  maxStates?: number;
  /** For the bench's baseline only: take each edge's step again after probing its guards (the old way). */
  retakeProbed?: boolean;
}

/** More guard evaluations than this in one step means an eventless loop. */
const MAX_GUARD_ASKS = 40;
class EventlessLoop extends Error {
  constructor() {
    super('eventless transitions loop under these guard outcomes');
  }
}

/**
 * Whether `error` says the step never settles: guarded eventless transitions enabling each
 * other (EventlessLoop), or unguarded ones past the machine's microstep limit (XState's own
 * error, MAX_MICROSTEPS in simulation/build.ts).
 */
const loops = (error: unknown): boolean =>
  error instanceof EventlessLoop ||
  (error instanceof Error &&
    (error.cause instanceof EventlessLoop || error.message.startsWith('Infinite loop detected')));

/** At most this many guard outcome sets per event in one configuration. */
const MAX_ASSUMPTIONS = 64;

export function markTransitions(def: MachineDefinition): MachineDefinition {
  const transitions: MachineDefinition['transitions'] = {};
  for (const [id, t] of Object.entries(def.transitions))
    transitions[id] = { ...t, actions: [{ type: TAKEN, params: id }, ...t.actions] };
  return { ...def, transitions };
}

/** The event types a person (or the clock, or an invoked actor) could cause in a configuration. */
function sendableTypes(snapshot: AnyMachineSnapshot): string[] {
  const types = new Set<string>();
  const children = snapshot.children as Record<string, unknown>;
  for (const node of snapshot._nodes as AnyStateNode[]) {
    for (const type of node.transitions.keys()) {
      if (type.includes('*') || type.startsWith('xstate.done.state.') || type.startsWith('xstate.snapshot.')) continue;
      const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(type);
      if (actor && !((actor[1] as string) in children)) continue;
      if (type.startsWith('xstate.') && !actor && !type.startsWith('xstate.after.')) continue;
      types.add(type);
    }
  }
  return [...types].sort();
}

function vertexKey(s: AnyMachineSnapshot): string {
  const history = Object.entries(s.historyValue as Record<string, AnyStateNode[]>)
    .map(([id, nodes]) => `${id}=${nodes.map((n) => n.id).join(',')}`)
    .sort()
    .join(';');
  return `${JSON.stringify(s.value)}|${s.status}|${history}`;
}

export function buildTestGraph(def: MachineDefinition, options: GraphOptions = {}): TestGraph {
  const maxStates = options.maxStates ?? 5000;
  const asked = new Map<string, boolean>();
  let asks = 0;
  let assumed: GuardValues = {};
  // XState reads `hooks.guards[name]`: answer the edge's assumption and note that it asked.
  const guards = new Proxy<GuardValues>(
    {},
    {
      get: (_t, name) => {
        if (typeof name !== 'string') return undefined;
        // Eventless transitions that keep enabling each other under one assumption never settle.
        if (++asks > MAX_GUARD_ASKS) throw new EventlessLoop();
        const value = Object.hasOwn(assumed, name) ? assumed[name] === true : false;
        asked.set(name, value);
        return value;
      },
    },
  );
  const hooks: SimHooks = { guards, actions: [] };
  const machine: AnyStateMachine = buildSimMachine(markTransitions(def), def.context ?? {}, hooks);

  type Scope = Parameters<AnyStateMachine['transition']>[2];
  const scopeOf = (scope: Scope): Scope =>
    ({
      ...scope,
      actionExecutor: (action: { exec?: (info: unknown, params: unknown) => void; info: unknown; params: unknown }) =>
        action.exec?.(action.info, action.params),
    }) as Scope;

  const edgeInfo = new Map<string, { guards: GuardValues; taken: TransitionId[] }>();
  const step = (s: AnyMachineSnapshot, e: GraphEvent, scope: Scope) => {
    assumed = e.assume;
    asked.clear();
    asks = 0;
    hooks.actions = [];
    let next: AnyMachineSnapshot;
    try {
      next = machine.transition(s, { type: e.type }, scopeOf(scope)) as AnyMachineSnapshot;
    } catch (error) {
      // Not a step a run could take: the edge is dropped (it takes nothing and stays put).
      if (!loops(error)) throw error;
      hooks.actions = [];
      asked.clear();
      next = s;
    }
    const taken = hooks.actions.filter((a) => a.type === TAKEN).map((a) => a.params as string);
    edgeInfo.set(`${vertexKey(s)}\u0001${e.type}\u0001${JSON.stringify(e.assume)}`, {
      guards: Object.fromEntries(asked),
      taken,
    });
    return next;
  };
  // The traversal's own (mock) actor scope, kept for probing guard outcomes (assumptionsFor).
  let probeScope = undefined as unknown as Scope;
  // Probing an event's last assumption already took the step the traversal then asks for
  // (same snapshot, event object and scope): kept here, so each edge runs once, not twice.
  const probed = new WeakMap<GraphEvent, { from: AnyMachineSnapshot; next: AnyMachineSnapshot }>();
  const logic = {
    ...machine,
    transition: (s: AnyMachineSnapshot, e: GraphEvent, scope: Scope) => {
      const known = probed.get(e);
      return known && known.from === s && scope === probeScope && !options.retakeProbed
        ? known.next
        : step(s, e, scope);
    },
    getInitialSnapshot: (scope: Scope, input: unknown) => {
      probeScope = scope;
      return machine.getInitialSnapshot(scope, input);
    },
  } as unknown as AnyStateMachine;

  /**
   * The guard outcomes worth trying for one event: the decision tree of the guards XState
   * actually asks (an unknown guard answers false), branching on the first one asked
   * that the assumption does not fix yet. Only outcomes that can matter are enumerated.
   */
  const assumptionsFor = (s: AnyMachineSnapshot, type: string): GraphEvent[] => {
    const found: GraphEvent[] = [];
    const explore = (assume: GuardValues) => {
      if (found.length >= MAX_ASSUMPTIONS) return;
      const event: GraphEvent = { type, assume };
      const next = step(s, event, probeScope);
      const open = [...asked.keys()].find((n) => !Object.hasOwn(assume, n));
      if (open === undefined) {
        probed.set(event, { from: s, next });
        found.push(event);
        return;
      }
      explore({ ...assume, [open]: false });
      explore({ ...assume, [open]: true });
    };
    explore({});
    return found;
  };

  const eventsAt = (s: AnyMachineSnapshot): GraphEvent[] =>
    s.status === 'active' ? sendableTypes(s).flatMap((type) => assumptionsFor(s, type)) : [];

  assumed = {};
  hooks.actions = [];
  // Exploration stops expanding past maxStates configurations, so a huge chart ends fast.
  let explored = 0;
  const adj = getAdjacencyMap(logic as never, {
    events: eventsAt as never,
    serializeState: vertexKey as never,
    serializeEvent: ((e: GraphEvent) => `${e.type}\u0001${JSON.stringify(e.assume)}`) as never,
    stopWhen: () => ++explored > maxStates,
  }) as unknown as Adjacency;
  const entries = Object.entries(adj);
  if (entries.length > maxStates)
    throw new PathLimitError(`more than ${maxStates} configurations; choose a target state or a depth`);

  const vertices = new Map<string, GraphVertex>();
  for (const [key, v] of entries) {
    const snap = v.state;
    vertices.set(key, { key, activePaths: activePathsOf(snap.value as StateValue), done: snap.status === 'done' });
  }
  const out = new Map<string, GraphEdge[]>();
  const edges: GraphEdge[] = [];
  for (const [key, v] of entries) {
    const list: GraphEdge[] = [];
    const seen = new Set<string>();
    for (const t of Object.values(v.transitions)) {
      const info = edgeInfo.get(`${key}\u0001${t.event.type}\u0001${JSON.stringify(t.event.assume)}`);
      if (!info) continue;
      const to = vertexKey(t.state);
      // An event that took no transition and moved nowhere is not a step.
      if (info.taken.length === 0 && to === key) continue;
      const sig = `${t.event.type}\u0001${JSON.stringify(info.guards)}`;
      if (seen.has(sig)) continue;
      seen.add(sig);
      const edge: GraphEdge = {
        from: key,
        to,
        kind: t.event.type.startsWith('xstate.after.') ? 'time' : 'event',
        type: t.event.type,
        guards: info.guards,
        taken: info.taken,
      };
      list.push(edge);
      edges.push(edge);
    }
    out.set(key, list);
  }
  const startKey = entries[0]?.[0] as string;
  return {
    start: vertices.get(startKey) as GraphVertex,
    vertices,
    out,
    edges,
    transitionIds: Object.keys(def.transitions),
  };
}

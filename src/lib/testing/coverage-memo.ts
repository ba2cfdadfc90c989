import { createActor, type AnyActor, type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode } from 'xstate';
import type { MachineDefinition, StateId, TransitionId } from '../model/types.ts';
import { buildSimMachine, type SimHooks } from '../simulation/build.ts';
import { StepClock } from '../simulation/clock.ts';
import { isSendableType } from '../simulation/simulator.ts';
import type { GuardValues, SimLogEntry } from '../simulation/types.ts';
import { ENTERED, patchBuilt } from './coverage-patch.ts';
import { touchedBy } from './coverage-touch.ts';
import { recording } from './coverage.ts';
import { markTransitions, TAKEN } from './graph.ts';

/**
 * The step graph behind incremental coverage. Recorded runs walk a small graph of
 * configurations over and over (a definition's code never runs, so a step depends only
 * on the configuration before it, the entry's kind and type and its guard switches):
 * each (configuration, entry) pair runs once on a real XState actor, later ones are
 * look-ups. Each step keeps what it covered (transitions taken, guard outcomes asked)
 * and its footprint: the states active before it and the states it entered.
 *
 * After an edit the graph moves to the new version (`carry`): a step whose footprint
 * misses every state the edit touched (coverage-touch.ts) does the same there and is
 * kept; the rest are dropped and run again when a run next walks them. Configurations
 * are keyed by state ids, not names, so a rename keeps everything it did not touch.
 */

export { ENTERED };

export interface StepEdge {
  to: ConfigNode;
  taken: TransitionId[];
  /** Guard outcomes XState asked in this step, as `name=true|false`. */
  guards: string[];
  /** States active before the step and states it entered: what it depends on. */
  footprint: StateId[];
}

export interface ConfigNode {
  key: string;
  /** Ids of every active state, the root included. */
  ids: StateId[];
  active: boolean;
  /** The node and entry that first led here (a shortest path once carried), to rebuild an actor. */
  parent: ConfigNode | null;
  via: SimLogEntry | null;
  edges: Map<string, StepEdge>;
}

interface Live {
  actor: AnyActor;
  clock: StepClock;
  node: ConfigNode;
}

/** Every state gets an entry marker naming its id, as markTransitions does for transitions. */
function markStates(def: MachineDefinition): MachineDefinition {
  const states: MachineDefinition['states'] = {};
  for (const [id, s] of Object.entries(def.states))
    states[id] = { ...s, entry: [{ type: ENTERED, params: id }, ...s.entry] };
  return { ...def, states };
}

const entryKeys = new WeakMap<SimLogEntry, string>();
/** What decides a step besides the configuration (never the payload); computed once per entry. */
export function entryKey(entry: SimLogEntry): string {
  let key = entryKeys.get(entry);
  if (key === undefined) {
    key = JSON.stringify([entry.kind, entry.kind === 'time' ? null : entry.type, entry.guards]);
    entryKeys.set(entry, key);
  }
  return key;
}

export class StepGraph {
  readonly nodes = new Map<string, ConfigNode>();
  root!: ConfigNode;
  /** What starting the machine entered and took. */
  startTaken: TransitionId[] = [];
  startFootprint: StateId[] = [];
  /** This version's machine is the last one's, moved in place (coverage-patch.ts), not built anew. */
  patched = false;
  private built: { machine: AnyStateMachine; hooks: SimHooks; idOf: Map<AnyStateNode, StateId> } | null = null;
  private live: Live | null = null;

  private constructor(readonly def: MachineDefinition) {}

  static create(def: MachineDefinition, built: StepGraph['built'] = null): StepGraph {
    const graph = new StepGraph(def);
    graph.built = built;
    const live = graph.spawn();
    const marks = graph.takeMarks();
    const root = graph.nodeAt(live, null, null);
    graph.root = root;
    graph.startTaken = marks.taken;
    graph.startFootprint = [...new Set([...root.ids, ...marks.entered])];
    live.node = root;
    graph.live = live;
    return graph;
  }

  /**
   * This graph moved to `def`: the steps the edit cannot have changed, reachable from
   * the start through such steps (each node's path to rebuild an actor is a shortest
   * one over kept steps, so replaying it on the new version reaches the same node).
   * A fresh graph when the start itself was touched.
   */
  carry(def: MachineDefinition, patch = true): StepGraph {
    if (def === this.def) return this;
    this.dropLive();
    // The machine moved to the new version in place when the edit allows (coverage-patch.ts); this graph is done with.
    let built: ReturnType<typeof patchBuilt>;
    try {
      built = patch && this.built ? patchBuilt(this.built, this.def, def) : null;
    } catch {
      built = null; // half moved: dropped below, built anew when a step needs it
    }
    const carried = built && this.built ? { ...this.built, ...built } : null;
    this.built = null;
    const touched = touchedBy(this.def, def);
    if (touched === 'all' || this.startFootprint.some((id) => touched.has(id))) {
      const fresh = StepGraph.create(def, carried);
      fresh.patched = carried !== null;
      return fresh;
    }
    const next = new StepGraph(def);
    next.built = carried;
    next.patched = carried !== null;
    next.startTaken = this.startTaken;
    next.startFootprint = this.startFootprint;
    const copies = new Map<ConfigNode, ConfigNode>();
    const copy = (n: ConfigNode, parent: ConfigNode | null, via: SimLogEntry | null): ConfigNode => {
      const c: ConfigNode = { key: n.key, ids: n.ids, active: n.active, parent, via, edges: new Map() };
      copies.set(n, c);
      next.nodes.set(c.key, c);
      return c;
    };
    next.root = copy(this.root, null, null);
    const queue: ConfigNode[] = [this.root];
    for (let i = 0; i < queue.length; i++) {
      const old = queue[i] as ConfigNode;
      const here = copies.get(old) as ConfigNode;
      for (const [key, e] of old.edges) {
        if (e.footprint.some((id) => touched.has(id))) continue;
        let to = copies.get(e.to);
        if (!to) {
          to = copy(e.to, here, entryOf(key, e));
          queue.push(e.to);
        }
        here.edges.set(key, { ...e, to });
      }
    }
    return next;
  }

  /** The step from `node` for `entry`: known, or run now on the actor (null if it cannot run). */
  step(node: ConfigNode, entry: SimLogEntry): StepEdge | null {
    const key = entryKey(entry);
    const known = node.edges.get(key);
    if (known) return known;
    const live = this.materialise(node);
    if (!live) return null;
    const built = this.built as NonNullable<StepGraph['built']>;
    const asked = new Set<string>();
    built.hooks.guards = recording(entry.guards, asked);
    built.hooks.actions = [];
    try {
      apply(live, entry);
    } catch {
      this.dropLive();
      return null;
    }
    const marks = this.takeMarks();
    const to = this.nodeAt(live, node, entry);
    live.node = to;
    const edge: StepEdge = {
      to,
      taken: marks.taken,
      guards: [...asked],
      footprint: [...new Set([...node.ids, ...marks.entered])],
    };
    node.edges.set(key, edge);
    return edge;
  }

  /** Stops the actor kept between steps (call when a walk is over). */
  dropLive(): void {
    this.live?.actor.stop();
    this.live = null;
  }

  private build() {
    if (!this.built) {
      const hooks: SimHooks = { guards: {}, actions: [] };
      const machine = buildSimMachine(markStates(markTransitions(this.def)), this.def.context ?? {}, hooks);
      const byPath = new Map<string, StateId>();
      const walk = (id: StateId, path: string) => {
        byPath.set(path, id);
        for (const c of this.def.states[id]?.children ?? []) walk(c, `${path}\u0001${this.def.states[c]?.key}`);
      };
      walk(this.def.root, '');
      const idOf = new Map<AnyStateNode, StateId>();
      const visit = (n: AnyStateNode) => {
        const id = byPath.get(n.path.map((k: string) => `\u0001${k}`).join(''));
        if (id !== undefined) idOf.set(n, id);
        for (const c of Object.values(n.states as Record<string, AnyStateNode>)) visit(c);
      };
      visit(machine.root);
      this.built = { machine, hooks, idOf };
    }
    return this.built;
  }

  private spawn(): Live {
    const { machine, hooks } = this.build();
    hooks.guards = {};
    hooks.actions = [];
    const clock = new StepClock();
    const actor = createActor(machine, { clock });
    // As in coverage.ts: an actor that errs (an eventless cycle) stops where it was, reported to no one.
    actor.subscribe({ error: () => undefined });
    actor.start();
    return { actor, clock, node: null as unknown as ConfigNode };
  }

  private takeMarks(): { taken: TransitionId[]; entered: StateId[] } {
    const hooks = (this.built as NonNullable<StepGraph['built']>).hooks;
    const taken: TransitionId[] = [];
    const entered: StateId[] = [];
    for (const a of hooks.actions) {
      if (a.type === TAKEN && typeof a.params === 'string') taken.push(a.params);
      else if (a.type === ENTERED && typeof a.params === 'string') entered.push(a.params);
    }
    hooks.actions = [];
    return { taken, entered };
  }

  /** The actor at `node`: the one kept in step, or a new one replaying the node's first path. */
  private materialise(node: ConfigNode): Live | null {
    if (this.live?.node === node) return this.live;
    this.dropLive();
    if (!node.active) return null;
    const path: SimLogEntry[] = [];
    for (let n: ConfigNode | null = node; n?.via; n = n.parent) path.push(n.via);
    path.reverse();
    const live = this.spawn();
    const { hooks } = this.build();
    try {
      for (const e of path) {
        hooks.guards = e.guards;
        apply(live, e);
      }
    } catch {
      live.actor.stop();
      return null;
    }
    hooks.actions = [];
    live.node = node;
    this.live = live;
    return live;
  }

  /** The node for the actor's configuration, found by key or added. */
  private nodeAt(live: Live, parent: ConfigNode | null, via: SimLogEntry | null): ConfigNode {
    const { idOf } = this.build();
    const snap = live.actor.getSnapshot() as AnyMachineSnapshot;
    const ids = (snap._nodes as AnyStateNode[]).map((n) => idOf.get(n) ?? `?${n.id}`).sort();
    const history = Object.entries(snap.historyValue as Record<string, AnyStateNode[]>)
      .map(([h, nodes]) => [h, nodes.map((n) => idOf.get(n) ?? `?${n.id}`)])
      .sort();
    const key = JSON.stringify([
      ids,
      history,
      Object.keys(snap.children as Record<string, unknown>).sort(),
      snap.status,
      live.clock.remaining(),
    ]);
    let node = this.nodes.get(key);
    if (!node) {
      node = { key, ids, active: snap.status === 'active', parent, via, edges: new Map() };
      this.nodes.set(key, node);
    }
    return node;
  }
}

/** An entry for a kept step, to replay it (its key says all that matters; payloads never do). */
function entryOf(key: string, e: StepEdge): SimLogEntry {
  if (e.to.via && entryKey(e.to.via) === key) return e.to.via;
  const [kind, type, guards] = JSON.parse(key) as [SimLogEntry['kind'], string | null, GuardValues];
  return { seq: 0, kind, type, payload: {}, guards, sender: null };
}

/** One log entry on the actor, as Simulator applies it (an unhandled actor error is skipped). */
function apply(live: Live, e: SimLogEntry): void {
  const snap = live.actor.getSnapshot() as AnyMachineSnapshot;
  if (snap.status !== 'active') return;
  if (e.kind === 'time') {
    live.clock.fireNext();
    return;
  }
  const type = e.type ?? '';
  if (!isSendableType(type) || (type.startsWith('xstate.error.') && !snap.can({ type }))) return;
  live.actor.send({ ...e.payload, type });
}

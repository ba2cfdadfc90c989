import { Simulator } from './simulator.ts';
import type { ActionCall, IgnoredReason, SimLogEntry, SimSetup, SimStep, SimView } from './types.ts';

/**
 * Memoised replay. A definition's code never runs (build.ts), so its context never
 * changes and a step depends only on the state before it (Simulator.stateKey), the
 * entry's kind and type and the guard switches it carries; never on its payload or
 * sender. A long log therefore walks a small graph of states over and over: each
 * (state, entry) pair is run once on the real XState actor, and every later time it is
 * a map look-up. The actor is kept in step while new pairs come; after a run of known
 * ones it is rebuilt, when needed, by replaying the short path that first found the
 * state.
 */

type StateView = Omit<SimView, 'now'>;

interface Edge {
  to: StateNode;
  ignored: IgnoredReason | null;
  actions: ActionCall[];
  /** Simulated ms the entry moved the clock (advance time). */
  dt: number;
}

interface StateNode {
  view: StateView;
  /** The state and the entry that first led here, so the actor can be rebuilt. */
  parent: StateNode | null;
  via: SimLogEntry | null;
  edges: Map<string, Edge>;
}

interface Graph {
  root: StateNode;
  startActions: ActionCall[];
  nodes: Map<string, StateNode>;
}

/** One graph per setup object: a setup pins a definition, a context and guards. */
const graphs = new WeakMap<SimSetup, Graph>();

/**
 * What a step depends on besides the state, as text: kind, type and the guard switches in
 * their order. Each part is length-prefixed, so no type or guard name can run into the next
 * part (two different entries never share a key). Built by hand: this runs once per entry
 * and JSON.stringify was a third of a cold replay's time.
 */
export function entryKey(entry: SimLogEntry): string {
  let key = entry.kind === 'time' ? 't' : `e${entry.type?.length ?? -1}:${entry.type ?? ''}`;
  const { guards } = entry;
  for (const name in guards) {
    if (!Object.hasOwn(guards, name)) continue;
    key += `|${name.length}:${name}${guards[name] ? '1' : '0'}`;
  }
  return key;
}

function viewOf(sim: Simulator): StateView {
  const { now: _now, ...view } = sim.view();
  return view;
}

function pathTo(node: StateNode): SimLogEntry[] {
  const path: SimLogEntry[] = [];
  for (let n: StateNode | null = node; n?.via; n = n.parent) path.push(n.via);
  return path.reverse();
}

/**
 * A replay that takes log entries in order, like Simulator.apply, and gives the same
 * steps, memoised. `simulator()` hands out a real simulator at the current state for
 * questions (what can be sent now).
 */
export class MemoWalker {
  private readonly graph: Graph;
  private node: StateNode;
  /** The actor, when it is at `node`; null after known steps moved on without it. */
  private sim: Simulator | null;
  private now = 0;
  private lastSeq = 0;

  constructor(readonly setup: SimSetup) {
    let graph = graphs.get(setup);
    if (!graph) {
      const sim = new Simulator(setup);
      const first = sim.start();
      const root: StateNode = { view: viewOf(sim), parent: null, via: null, edges: new Map() };
      graph = { root, startActions: first.actions, nodes: new Map() };
      const key = sim.stateKey();
      if (key !== null) graph.nodes.set(key, root);
      graphs.set(setup, graph);
      this.sim = sim;
    } else this.sim = null;
    this.graph = graph;
    this.node = graph.root;
  }

  /** The seq of the last entry applied (0 before any). */
  get seq(): number {
    return this.lastSeq;
  }

  start(): SimStep {
    return { seq: 0, ignored: null, actions: this.graph.startActions, ...this.view() };
  }

  view(): SimView {
    return { ...this.node.view, now: this.now };
  }

  apply(entry: SimLogEntry): SimStep {
    const edge = this.step(entry);
    return { seq: entry.seq, ignored: edge.ignored, actions: edge.actions, ...this.view() };
  }

  advance(entry: SimLogEntry): IgnoredReason | null {
    return this.step(entry).ignored;
  }

  /** A real simulator at the current state (rebuilt if the walk went on without it). */
  simulator(): Simulator {
    return this.materialise();
  }

  stop(): void {
    this.sim?.stop();
    this.sim = null;
  }

  private materialise(): Simulator {
    if (this.sim) return this.sim;
    const sim = new Simulator(this.setup);
    pathTo(this.node).forEach((e, i) => sim.advance({ ...e, seq: i + 1 }));
    this.sim = sim;
    return sim;
  }

  private step(entry: SimLogEntry): Edge {
    if (entry.seq !== this.lastSeq + 1) throw new Error(`expected log entry ${this.lastSeq + 1}, got ${entry.seq}`);
    this.lastSeq = entry.seq;
    const key = entryKey(entry);
    const known = this.node.edges.get(key);
    if (known) {
      if (this.sim) {
        this.sim.stop();
        this.sim = null;
      }
      return this.move(known);
    }
    const sim = this.materialise();
    const before = sim.view().now;
    const step = sim.apply({ ...entry, seq: sim.seq + 1 });
    const stateKey = sim.stateKey();
    let to = stateKey === null ? undefined : this.graph.nodes.get(stateKey);
    if (!to) {
      to = { view: viewOf(sim), parent: this.node, via: entry, edges: new Map() };
      if (stateKey !== null) this.graph.nodes.set(stateKey, to);
    }
    const edge: Edge = { to, ignored: step.ignored, actions: step.actions, dt: step.now - before };
    // A state without a key is never found again, so its edges are not worth keeping.
    if (stateKey !== null) this.node.edges.set(key, edge);
    return this.move(edge);
  }

  private move(edge: Edge): Edge {
    this.node = edge.to;
    this.now += edge.dt;
    return edge;
  }
}

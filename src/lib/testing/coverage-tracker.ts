import { keyPathOf } from '../model/tree.ts';
import type { MachineDefinition, StateId, TransitionId } from '../model/types.ts';
import { definitionNames } from '../simulation/build.ts';
import type { Coverage, CoverageRun } from './coverage.ts';
import { entryKey as entryKeyOf, StepGraph, type ConfigNode, type StepEdge } from './coverage-memo.ts';

/**
 * Coverage kept up to date across edits: the same answer as `computeCoverage` (the
 * full recompute, coverage.ts), from a step graph (coverage-memo.ts) that each edit
 * carries to the new version, so only the steps an edit touched run again. The answer
 * is memoised by (definition, runs): the same objects give the same Coverage object.
 */
export class CoverageTracker {
  private graph: StepGraph | null = null;
  private last: { def: MachineDefinition; runs: readonly CoverageRun[]; coverage: Coverage } | null = null;
  /** Steps run on an actor by the last `compute` (the rest were look-ups); for the bench and tests. */
  ran = 0;
  /** Whether the last `compute` moved the machine to the new version in place (coverage-patch.ts). */
  patched = false;

  /** `patch: false` builds a new machine for every version (the old way; the bench's baseline). */
  constructor(private readonly options: { patch?: boolean } = {}) {}

  compute(def: MachineDefinition, runs: readonly CoverageRun[]): Coverage {
    if (this.last && this.last.def === def && this.last.runs === runs) return this.last.coverage;
    const coverage = this.walk(def, runs);
    this.last = { def, runs, coverage };
    return coverage;
  }

  private walk(def: MachineDefinition, runs: readonly CoverageRun[]): Coverage {
    this.ran = 0;
    const nodes = new Set<ConfigNode>();
    const edges = new Set<StepEdge>();
    let startTaken: readonly TransitionId[];
    try {
      const graph = this.graph ? this.graph.carry(def, this.options.patch ?? true) : StepGraph.create(def);
      this.graph = graph;
      this.patched = graph.patched;
      startTaken = graph.startTaken;
      for (const run of runs) {
        let node = graph.root;
        nodes.add(node);
        for (const entry of run.entries) {
          if (!node.active) break;
          const known = node.edges.get(entryKeyOf(entry));
          const edge = known ?? graph.step(node, entry);
          if (!known && edge) this.ran++;
          if (!edge) break;
          edges.add(edge);
          node = edge.to;
          nodes.add(node);
        }
      }
      graph.dropLive();
    } catch {
      // A definition the interpreter cannot build covers nothing, as in the full recompute.
      this.graph = null;
      nodes.clear();
      edges.clear();
      startTaken = [];
    }
    const stateIds = new Set<StateId>();
    for (const n of nodes) for (const id of n.ids) stateIds.add(id);
    const transitions = new Set<TransitionId>(runs.length > 0 && nodes.size > 0 ? startTaken : []);
    const guards = new Set<string>();
    for (const e of edges) {
      for (const t of e.taken) transitions.add(t);
      for (const g of e.guards) guards.add(g);
    }
    return coverageOf(def, stateIds, transitions, guards);
  }
}

/** Coverage in the definition's terms: dot paths of states, existing transitions, known guards. */
export function coverageOf(
  def: MachineDefinition,
  stateIds: ReadonlySet<StateId>,
  transitions: ReadonlySet<TransitionId>,
  guards: ReadonlySet<string>,
): Coverage {
  const all: string[] = [];
  const covered = new Set<string>();
  const walk = (id: StateId) => {
    const s = def.states[id];
    if (!s) return;
    if (s.parent !== null) {
      const path = keyPathOf(def, id).join('.');
      all.push(path);
      if (stateIds.has(id)) covered.add(path);
    }
    for (const c of s.children) walk(c);
  };
  walk(def.root);
  const names = definitionNames(def).guards;
  return {
    states: { all, covered },
    transitions: {
      all: Object.keys(def.transitions),
      covered: new Set([...transitions].filter((t) => Object.hasOwn(def.transitions, t))),
    },
    guards: {
      all: names.flatMap((n) => [`${n}=true`, `${n}=false`]),
      covered: new Set([...guards].filter((g) => names.includes(g.slice(0, g.lastIndexOf('='))))),
    },
  };
}

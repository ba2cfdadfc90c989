import { keyPathOf } from '../model/tree.ts';
import type { MachineDefinition } from '../model/types.ts';
import { buildTestGraph, type GraphEdge, type GraphOptions, type TestGraph } from './graph.ts';
import { PathLimitError, type PathKind, type TestPath, type TestStep } from './types.ts';
import { pathWords } from './words.ts';

/**
 * Paths through a definition's graph (graph.ts): the shortest path to every state, the
 * simple paths to one state, and a set of paths that together take every transition
 * that can be taken. Generation stops with a PathLimitError past `maxPaths`, never hangs.
 */

export const DEFAULT_MAX_PATHS = 500;

export interface PathOptions extends GraphOptions {
  /** The most paths returned before giving up (default 500). */
  maxPaths?: number;
  /** For simple paths: the most steps in one path. */
  depth?: number;
}

const tooMany = (n: number) => new PathLimitError(`more than ${n} paths; choose a target state or a depth`);

function toPath(
  graph: TestGraph,
  edges: readonly GraphEdge[],
  kind: PathKind,
  target: string | null,
  n: number,
): TestPath {
  const steps: TestStep[] = edges.map((e) => ({
    kind: e.kind,
    type: e.type,
    payload: {},
    guards: e.guards,
    expect: graph.vertices.get(e.to)?.activePaths ?? [],
  }));
  const start = graph.start.activePaths;
  return {
    id: `${kind}:${target ?? ''}:${n}`,
    kind,
    target,
    start,
    steps,
    taken: edges.map((e) => e.taken),
    words: pathWords(start, steps),
  };
}

/** Breadth-first from the start: the shortest edge list to each vertex. */
function shortestTree(graph: TestGraph): Map<string, GraphEdge[]> {
  const via = new Map<string, GraphEdge[]>([[graph.start.key, []]]);
  const queue = [graph.start.key];
  for (let i = 0; i < queue.length; i++) {
    const key = queue[i] as string;
    const here = via.get(key) as GraphEdge[];
    for (const e of graph.out.get(key) ?? []) {
      if (via.has(e.to)) continue;
      via.set(e.to, [...here, e]);
      queue.push(e.to);
    }
  }
  return via;
}

/** Dot paths of the definition's states (not the root), in document order. */
export function statePaths(def: MachineDefinition): string[] {
  const out: string[] = [];
  const walk = (id: string) => {
    const s = def.states[id];
    if (!s) return;
    if (s.parent !== null) out.push(keyPathOf(def, id).join('.'));
    for (const c of s.children) walk(c);
  };
  walk(def.root);
  return out;
}

/** The shortest path to each state that can be reached (history states are never active). */
export function shortestPaths(def: MachineDefinition, options: PathOptions = {}, graph = buildTestGraph(def, options)) {
  const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
  const tree = shortestTree(graph);
  const paths: TestPath[] = [];
  const unreachable: string[] = [];
  for (const target of statePaths(def)) {
    let best: GraphEdge[] | null = null;
    for (const [key, edges] of tree) {
      if (!(graph.vertices.get(key)?.activePaths.includes(target) ?? false)) continue;
      if (best === null || edges.length < best.length) best = edges;
    }
    if (best === null) {
      unreachable.push(target);
      continue;
    }
    if (paths.length >= maxPaths) throw tooMany(maxPaths);
    paths.push(toPath(graph, best, 'shortest', target, paths.length));
  }
  return { paths, unreachable };
}

/** Every path to `target` that visits no configuration twice, shortest first. */
export function simplePaths(
  def: MachineDefinition,
  target: string,
  options: PathOptions = {},
  graph = buildTestGraph(def, options),
): TestPath[] {
  const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
  const depth = options.depth ?? Infinity;
  const found: GraphEdge[][] = [];
  const onPath = new Set<string>();
  const trail: GraphEdge[] = [];
  const reaches = (key: string) => graph.vertices.get(key)?.activePaths.includes(target) ?? false;
  const visit = (key: string) => {
    if (reaches(key)) {
      if (found.length >= maxPaths) throw tooMany(maxPaths);
      found.push([...trail]);
      return;
    }
    if (trail.length >= depth) return;
    onPath.add(key);
    for (const e of graph.out.get(key) ?? []) {
      if (onPath.has(e.to)) continue;
      trail.push(e);
      visit(e.to);
      trail.pop();
    }
    onPath.delete(key);
  };
  visit(graph.start.key);
  found.sort((a, b) => a.length - b.length);
  return found.map((edges, i) => toPath(graph, edges, 'simple', target, i));
}

/**
 * Paths that together take every transition some path can take: for each transition not
 * yet taken, the shortest path from the start ending on an edge that takes it. A
 * transition no path takes (unreachable, or never enabled) is listed as such.
 */
export function transitionCover(
  def: MachineDefinition,
  options: PathOptions = {},
  graph = buildTestGraph(def, options),
) {
  const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
  const tree = shortestTree(graph);
  const covered = new Set<string>();
  const paths: TestPath[] = [];
  for (const id of graph.transitionIds) {
    if (covered.has(id)) continue;
    let best: GraphEdge[] | null = null;
    for (const [key, edges] of tree)
      for (const e of graph.out.get(key) ?? [])
        if (e.taken.includes(id) && (best === null || edges.length + 1 < best.length)) best = [...edges, e];
    if (best === null) continue;
    if (paths.length >= maxPaths) throw tooMany(maxPaths);
    for (const e of best) for (const t of e.taken) covered.add(t);
    paths.push(toPath(graph, best, 'cover', null, paths.length));
  }
  const untaken = graph.transitionIds.filter((id) => !covered.has(id));
  return { paths, untaken };
}

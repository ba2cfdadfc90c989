import type { MachineDefinition, StateId } from '../model/types.ts';

/** The ELK graph's own wrapper around the machine root; never drawn. */
export const WRAPPER_ID = '__graph';

/**
 * One ELK edge inside a single graph (a compound state's children, or the wrapper for
 * the root). ELK lays out every compound on its own (`SEPARATE_CHILDREN`), far cheaper
 * than one hierarchy-wide run, but then an edge may only join things inside one graph.
 * So a transition that crosses compound borders becomes a chain of pieces: from the
 * source out through one shared `out` port on the border of each compound it leaves, one
 * piece of its own at the lowest common container (which carries the label), then in
 * through one shared `in` port per compound it enters, to the target. Pieces below the
 * common container are shared by every transition taking the same way out or in (drawn
 * as one bundled line), which keeps each compound's graph small. The output joins a
 * transition's pieces end to end and takes its label (by id) from its own piece.
 */
export interface Piece {
  /**
   * ELK edge id, `<from>-><to>`: every transition between the same two ends shares one
   * ELK edge, its own piece included (that edge then carries one label per transition,
   * stacked). Fewer, shorter edges are most of what the big top-level graphs cost.
   */
  id: string;
  /** The state whose children graph holds this piece (WRAPPER_ID for the root level). */
  graph: StateId;
  source: string;
  target: string;
  /** The drawn edge's own piece: the one at the lowest common container, with its label. */
  own: boolean;
}

export type PortKind = 'in' | 'out';

/** The shared port on compound `state`'s border that edges leave (`out`) or enter (`in`) by. */
export const portId = (state: StateId, kind: PortKind): string => `${state}@${kind}`;

interface End {
  elkId: string;
  /** The graphs in which this end is visible: a node in its parent's, a port in both. */
  graphs: StateId[];
}

/** What a drawn edge needs from ELK: its pieces in order and the border ports they use. */
export interface Route {
  pieces: Piece[];
  ports: { state: StateId; kind: PortKind }[];
}

const parentGraph = (def: MachineDefinition, id: StateId): StateId => def.states[id]?.parent ?? WRAPPER_ID;

/** The chain from `id` (exclusive) up to `top` (exclusive), nearest first. */
function chainBelow(def: MachineDefinition, id: StateId, top: StateId): StateId[] {
  const out: StateId[] = [];
  let cur = def.states[id]?.parent ?? null;
  while (cur !== null && cur !== top) {
    out.push(cur);
    cur = def.states[cur]?.parent ?? null;
  }
  return out;
}

/** The lowest state containing both (one may contain the other). */
function lowestCommon(def: MachineDefinition, a: StateId, b: StateId): StateId {
  const seen = new Set<StateId>();
  for (let cur: StateId | null = a; cur !== null; cur = def.states[cur]?.parent ?? null) seen.add(cur);
  for (let cur: StateId | null = b; cur !== null; cur = def.states[cur]?.parent ?? null) if (seen.has(cur)) return cur;
  return def.root;
}

/** The pieces of a drawn edge from `source` to `target` (equal for a loop). */
export function routeOf(def: MachineDefinition, source: StateId, target: StateId): Route {
  const ports: Route['ports'] = [];
  const port = (state: StateId, kind: PortKind): End => {
    ports.push({ state, kind });
    return { elkId: portId(state, kind), graphs: [state, parentGraph(def, state)] };
  };
  // Edges meet a compound only at its ports: ELK fixes the sides of a compound's ports
  // (that keeps them where its inside put them), and an edge attached to such a node
  // without a port of its own would be pinned to a corner.
  const compound = (s: StateId): boolean => (def.states[s]?.children.length ?? 0) > 0;
  const node = (s: StateId, kind: PortKind): End =>
    compound(s) ? port(s, kind) : { elkId: s, graphs: [parentGraph(def, s)] };
  if (source === target) {
    const [from, to] = [node(source, 'out'), node(target, 'in')];
    return {
      pieces: [
        {
          id: `${from.elkId}->${to.elkId}`,
          graph: parentGraph(def, source),
          source: from.elkId,
          target: to.elkId,
          own: true,
        },
      ],
      ports,
    };
  }
  const top = lowestCommon(def, source, target);
  // A transition from a compound into its own descendant starts at its `in` port (the
  // line enters from its border); one from inside a compound to that compound ends at
  // its `out` port.
  const ends: End[] = [source === top ? port(source, 'in') : node(source, 'out')];
  if (source !== top) for (const p of chainBelow(def, source, top)) ends.push(port(p, 'out'));
  const ownFrom = ends.length - 1;
  if (target !== top) for (const q of chainBelow(def, target, top).reverse()) ends.push(port(q, 'in'));
  ends.push(target === top ? port(target, 'out') : node(target, 'in'));

  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < ends.length; i++) {
    const a = ends[i] as End;
    const b = ends[i + 1] as End;
    const graph = a.graphs.find((g) => b.graphs.includes(g));
    if (graph === undefined) throw new Error(`no common graph for ${a.elkId} -> ${b.elkId}`);
    pieces.push({ id: `${a.elkId}->${b.elkId}`, graph, source: a.elkId, target: b.elkId, own: i === ownFrom });
  }
  return { pieces, ports };
}

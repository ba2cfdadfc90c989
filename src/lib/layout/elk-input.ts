import type { ElkExtendedEdge, ElkNode, ElkPort, LayoutOptions } from 'elkjs/lib/elk-api.js';
import { stateOf, transitionsBySource } from '../model/tree.ts';
import type { MachineDefinition, StateId } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { transitionLabel, wrapLabel } from './labels.ts';
import { portId, routeOf, WRAPPER_ID, type PortKind } from './segments.ts';
import { GEOMETRY, headerHeight, labelRoom, leafSize } from './sizes.ts';
import type { LayoutDirection, LayoutHints } from './types.ts';

export { WRAPPER_ID };

/**
 * Options every graph (the wrapper and each compound's children) is laid out with. ELK's
 * cost is mostly a fixed price per graph, and the last three lines cut it by about a
 * third (bench/sections/layout.ts) at a few more crossings in large graphs: one
 * crossing-minimisation pass instead of seven random restarts, no greedy-switch
 * post-pass, no packing of disconnected states as separate components.
 */
export const GRAPH_OPTIONS: Readonly<LayoutOptions> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'RIGHT',
  'elk.spacing.nodeNode': '16',
  'elk.layered.spacing.nodeNodeBetweenLayers': '24',
  'elk.spacing.edgeLabel': '2',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.thoroughness': '1',
  'elk.layered.crossingMinimization.greedySwitch.type': 'OFF',
  'elk.separateConnectedComponents': 'false',
};

/**
 * Definition -> ELK input. One ELK node per state (the machine root included, so
 * root-level transitions have a source) under a wrapper. Each compound's children are
 * laid out on their own, innermost first (`SEPARATE_CHILDREN`); a transition crossing
 * compound borders is split into pieces joined by border ports (segments.ts).
 * Coordinates come back relative (nodes to their parent, edges to the graph holding
 * them), which is what lets cache.ts reuse a compound's inside wherever it moves.
 *
 * Stability: children and edges keep document order (`considerModelOrder`), leaf widths
 * are snapped and sticky (sizes.ts), and a compound's inside depends only on its own
 * subtree, so an edit moves nothing inside the compounds it does not touch. Previous
 * positions are not fed back to ELK: its semi-interactive mode reorders a first
 * layout's dummies, which moved more than it kept still.
 *
 * `direction` is the flow of every graph: left to right, or top to bottom for a chart
 * that would otherwise be far wider than the pane it is shown in (direction.ts).
 */
export function buildElkGraph(
  def: MachineDefinition,
  measure: TextMeasure,
  hints: LayoutHints | null = null,
  direction: LayoutDirection = 'RIGHT',
): ElkNode {
  // Transitions enter on the side facing the flow and leave on the opposite one.
  const sides: Record<PortKind, string> =
    direction === 'DOWN' ? { in: 'NORTH', out: 'SOUTH' } : { in: 'WEST', out: 'EAST' };
  // Downwards, the network-simplex placement packs the layers' many labels narrower (the
  // session example fits its pane 18% larger); left to right keeps ELK's faster default.
  const graphOptions: LayoutOptions =
    direction === 'DOWN'
      ? { ...GRAPH_OPTIONS, 'elk.direction': direction, 'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX' }
      : { ...GRAPH_OPTIONS, 'elk.direction': direction };
  const room = labelRoom(direction);
  const bySource = transitionsBySource(def);
  const edgesIn = new Map<StateId, ElkExtendedEdge[]>();
  const portsOn = new Map<StateId, Set<PortKind>>();
  const byId = new Map<string, ElkExtendedEdge>();
  for (const id of Object.keys(def.states)) {
    for (const t of bySource.get(id) ?? []) {
      const text = transitionLabel(def, t);
      // A long label wraps at about 24 characters into a taller pill (shapes.tsx draws the same lines).
      const lines = wrapLabel(text);
      const labelWidth = Math.max(...lines.map((l) => measure(l, 'edge'))) + GEOMETRY.edgeLabelPad;
      const labelHeight = GEOMETRY.edgeLabelHeight + (lines.length - 1) * GEOMETRY.edgeLabelLine;
      const targets = t.targets.length === 0 ? [t.source] : t.targets;
      targets.forEach((target, i) => {
        const route = routeOf(def, t.source, target);
        for (const p of route.ports) {
          const kinds = portsOn.get(p.state) ?? new Set<PortKind>();
          kinds.add(p.kind);
          portsOn.set(p.state, kinds);
        }
        for (const piece of route.pieces) {
          let edge = byId.get(piece.id);
          if (!edge) {
            edge = { id: piece.id, sources: [piece.source], targets: [piece.target], labels: [] };
            byId.set(piece.id, edge);
            const list = edgesIn.get(piece.graph) ?? [];
            list.push(edge);
            edgesIn.set(piece.graph, list);
          }
          // The label's id is the drawn edge's: that is how the output finds it again.
          if (piece.own && i === 0)
            edge.labels?.push({
              id: t.id,
              text,
              // With room to grow (sizes.ts); elk-output.ts keeps the middle as the pill.
              width: labelWidth * room.x,
              height: labelHeight * room.y,
            });
        }
      });
    }
  }

  const node = (id: StateId): ElkNode => {
    const s = stateOf(def, id);
    const options: LayoutOptions = {};
    if (s.children.length === 0) return { id, ...leafSize(def, s, measure, hints), layoutOptions: options };
    const kinds = portsOn.get(id);
    const ports: ElkPort[] = [...(kinds ?? [])].sort().map((kind) => ({
      id: portId(id, kind),
      width: 0,
      height: 0,
      layoutOptions: { 'elk.port.side': sides[kind] },
    }));
    if (kinds) options['elk.portConstraints'] = 'FIXED_SIDE';
    const region = s.type === 'parallel';
    Object.assign(options, graphOptions);
    options['elk.padding'] =
      `[top=${headerHeight(s) + 8},left=${region ? GEOMETRY.pad : GEOMETRY.padLeft},bottom=${GEOMETRY.pad},right=${GEOMETRY.pad}]`;
    // Regions keep a visible gap: with none, neighbouring regions' dashed borders drew over each other.
    if (region) options['elk.spacing.nodeNode'] = String(GEOMETRY.regionGap);
    return { id, children: s.children.map(node), ports, edges: edgesIn.get(id) ?? [], layoutOptions: options };
  };

  return {
    id: WRAPPER_ID,
    layoutOptions: {
      ...graphOptions,
      'elk.hierarchyHandling': 'SEPARATE_CHILDREN',
      'elk.padding': '[top=0,left=0,bottom=0,right=0]',
    },
    children: [node(def.root)],
    edges: edgesIn.get(WRAPPER_ID) ?? [],
  };
}

import type { ElkExtendedEdge, ElkNode, LayoutOptions } from 'elkjs/lib/elk-api.js';
import { stateOf, transitionsBySource } from '../model/tree.ts';
import type { MachineDefinition, StateId } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { transitionLabel } from './labels.ts';
import { GEOMETRY, headerHeight, leafSize } from './sizes.ts';
import type { LayoutHints } from './types.ts';

/** The ELK graph's own wrapper around the machine root; never drawn. */
export const WRAPPER_ID = '__graph';

/**
 * Definition -> ELK input. One ELK node per state (the machine root included, so
 * root-level transitions have a source), all edges on the wrapper with
 * `INCLUDE_CHILDREN`, so ELK routes across hierarchy levels in one run. Coordinates
 * come back absolute (`elk.json.*Coords: ROOT`), which keeps the mapping trivial.
 *
 * Stability (see stability.ts): children and edges keep document order
 * (`considerModelOrder`), leaf widths are snapped and sticky, and with hints the previous
 * positions seed a semi-interactive crossing minimisation.
 */
export function buildElkGraph(def: MachineDefinition, measure: TextMeasure, hints: LayoutHints | null = null): ElkNode {
  const bySource = transitionsBySource(def);
  const edges: ElkExtendedEdge[] = [];

  const node = (id: StateId): ElkNode => {
    const s = stateOf(def, id);
    const options: LayoutOptions = {};
    const previous = hints?.positions[id];
    const parentPrev = s.parent !== null ? hints?.positions[s.parent] : undefined;
    if (previous && (s.parent === null || parentPrev)) {
      const px = parentPrev?.x ?? 0;
      const py = parentPrev?.y ?? 0;
      options['elk.position'] = `(${Math.round(previous.x - px)},${Math.round(previous.y - py)})`;
    }
    if (s.children.length === 0) {
      return { id, ...leafSize(def, s, measure, hints), layoutOptions: options };
    }
    const region = s.type === 'parallel';
    options['elk.padding'] = `[top=${headerHeight(s) + 8},left=${region ? GEOMETRY.pad : GEOMETRY.padLeft},bottom=${GEOMETRY.pad},right=${GEOMETRY.pad}]`;
    if (region) options['elk.spacing.nodeNode'] = '0';
    return { id, children: s.children.map(node), layoutOptions: options };
  };

  const root = node(def.root);
  for (const id of Object.keys(def.states)) {
    for (const t of bySource.get(id) ?? []) {
      const text = transitionLabel(def, t);
      const labels = [{ text, width: measure(text, 'edge') + GEOMETRY.edgeLabelPad, height: GEOMETRY.edgeLabelHeight }];
      const targets = t.targets.length === 0 ? [t.source] : t.targets;
      targets.forEach((target, i) => {
        edges.push({ id: i === 0 ? t.id : `${t.id}#${i}`, sources: [t.source], targets: [target], labels: i === 0 ? labels : [] });
      });
    }
  }

  return {
    id: WRAPPER_ID,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.direction': 'RIGHT',
      'elk.json.shapeCoords': 'ROOT',
      'elk.json.edgeCoords': 'ROOT',
      'elk.padding': '[top=0,left=0,bottom=0,right=0]',
      'elk.spacing.nodeNode': '28',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.edgeLabel': '4',
      'elk.edgeLabels.placement': 'CENTER',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.crossingMinimization.semiInteractive': hints ? 'true' : 'false',
    },
    children: [root],
    edges,
  };
}

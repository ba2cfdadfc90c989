import type { MachineDefinition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { fitViewport } from './fit.ts';
import { labelGrowthRoom } from './label-room.ts';
import { stateTitle } from './labels.ts';
import { detailLines, GEOMETRY, tagLine } from './sizes.ts';
import { extentOf, type Box, type Layout, type LayoutNode, type Point } from './types.ts';

/**
 * How the diagram degrades with zoom (Diagram.tsx draws by these numbers), and the
 * figures that say how readable a chart is at Fit (the fit bench and the layout tests).
 */

/** How tall a state's name is drawn on screen at least, in px (13 px at zoom 1). */
export const FAR_NAME_PX = 9;
/** Below this zoom (about 0.69) names grow to stay FAR_NAME_PX tall, and details give way. */
export const FAR = FAR_NAME_PX / 13;
/** How much names grow far out (at most four times), before any box caps them (shapes). */
export const nameScale = (zoom: number): number => Math.max(1, Math.min(4, FAR_NAME_PX / (13 * zoom)));

/** A text's top above its baseline per px of font size (Inter's box, as the browser measures it). */
const ASCENT = 0.97;
/** Where a state's name sits: its baseline, below the box's top. */
export const titleY = (compound: boolean): number => (compound ? 22 : 23);

/**
 * How many times a state's name (`nameWidth` px wide at its own size) may grow far out
 * and still lie inside its box: across, the room beside it (a compound's switch takes its
 * top-right corner); down, the room above its baseline. The drawing caps growth at this.
 */
export function nameGrowthRoom(node: LayoutNode, nameWidth: number, compound: boolean): number {
  if (node.type === 'history')
    return Math.max(1, Math.min((node.width - 8) / nameWidth, (node.height / 2 + 3) / (ASCENT * 13)));
  const across = compound ? node.width - 14 - (node.parent === null ? 12 : 32) : node.width - 8;
  const down = (titleY(compound) - 1) / (ASCENT * 13);
  return Math.max(1, Math.min(across / Math.max(1, nameWidth), down));
}

/** Transition labels (12 px at zoom 1) are drawn only while at least this tall on screen. */
export const LABEL_FLOOR_PX = 10;
/** Below this zoom (about 0.83) labels would be under the floor: they grow to it... */
export const LABELS_GROWN = LABEL_FLOOR_PX / 12;
/** ...by up to 1.35 times, past which neighbouring pills would cover each other. */
export const LABEL_GROWTH = 1.35;
/** The zoom below which labels give way to badges, given how far they may grow (label-room.ts). */
export const labelsOffBelow = (room: number): number => LABEL_FLOOR_PX / (12 * Math.min(LABEL_GROWTH, room));
/** How much a pill grows toward the floor (at most 2.5 times). */
export const pillScale = (zoom: number): number => Math.max(1, Math.min(2.5, LABEL_FLOOR_PX / (12 * zoom)));

/** How far this layout's labels may grow before one covers another. */
export const layoutLabelRoom = (layout: Layout): number =>
  labelGrowthRoom(
    Object.values(layout.edges).flatMap((e): Box[] => (e.label ? [e.label] : [])),
    LABEL_GROWTH,
  );

export interface Readability {
  zoom: number;
  /** Labels in the chart as shown, and how many are drawn at Fit (the rest count on badges). */
  labels: number;
  labelsDrawn: number;
  /** The smallest text on screen at Fit, in px: a drawn label, or a state's name. */
  smallestText: number;
  /** States whose name or detail lines, drawn at Fit, leave their box (with `texts`). */
  overflowing: number;
  /** Pairs of state boxes that overlap, neither holding the other. */
  overlapping: number;
  /** Edge pieces that run through a state's box that is neither end nor holds one. */
  crossing: number;
}

const inside = (p: Point, b: Box): boolean => p.x > b.x && p.x < b.x + b.width && p.y > b.y && p.y < b.y + b.height;

/** Whether the axis-aligned segment a-b passes through the inside of `b` (shrunk by 1 px). */
function segmentCrosses(a: Point, c: Point, b: Box): boolean {
  const box = { x: b.x + 1, y: b.y + 1, width: b.width - 2, height: b.height - 2 };
  if (inside(a, box) || inside(c, box)) return true;
  const [x0, x1] = [Math.min(a.x, c.x), Math.max(a.x, c.x)];
  const [y0, y1] = [Math.min(a.y, c.y), Math.max(a.y, c.y)];
  return x0 < box.x + box.width && x1 > box.x && y0 < box.y + box.height && y1 > box.y;
}

/** The figures of `layout` fitted in a `pane` (the stage's size in px); `texts` measures names and details. */
export function readability(
  layout: Layout,
  pane: { width: number; height: number },
  texts?: { def: MachineDefinition; measure: TextMeasure },
): Readability {
  const { zoom } = fitViewport(extentOf(layout), pane.width, pane.height);
  const edges = Object.values(layout.edges);
  const labels = edges.filter((e) => e.label).length;
  const drawn = zoom >= labelsOffBelow(layoutLabelRoom(layout)) ? labels : 0;
  const labelPx = 12 * zoom * pillScale(zoom);
  const namePx = 13 * zoom * nameScale(zoom);
  const nodes = Object.values(layout.nodes);
  const holds = (outer: string, inner: string): boolean => {
    for (let cur: string | null = inner; cur !== null; cur = layout.nodes[cur]?.parent ?? null)
      if (cur === outer) return true;
    return false;
  };
  let overlapping = 0;
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) {
      const [a, b] = [nodes[i] as Box & { id: string }, nodes[j] as Box & { id: string }];
      if (holds(a.id, b.id) || holds(b.id, a.id)) continue;
      const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (w > 1 && h > 1) overlapping += 1;
    }
  let overflowing = 0;
  for (const n of texts ? nodes : []) {
    const s = texts?.def.states[n.id];
    if (!s || !texts) continue;
    const compound = nodes.some((c) => c.parent === n.id);
    const name = n.type === 'history' ? 'H*' : stateTitle(texts.def, n.id);
    const width = texts.measure(name, 'state');
    const grown = width * Math.min(nameScale(zoom), nameGrowthRoom(n, width, compound));
    // Details are drawn only while names are not grown (canvas.css `.far`).
    const lines = zoom >= FAR ? [tagLine(s) ?? '', ...detailLines(s)] : [];
    const detail = Math.max(0, ...lines.map((l) => texts.measure(l, 'edge') + 2 * GEOMETRY.pad - 8));
    if (Math.max(grown + (compound ? 14 : 8), detail) > n.width + 0.5) overflowing += 1;
  }
  let crossing = 0;
  for (const e of edges)
    for (const n of nodes) {
      if (holds(n.id, e.source) || holds(n.id, e.target)) continue;
      if (e.points.some((p, k) => k > 0 && segmentCrosses(e.points[k - 1] as Point, p, n))) crossing += 1;
    }
  return {
    zoom,
    labels,
    labelsDrawn: drawn,
    smallestText: drawn > 0 ? Math.min(labelPx, namePx) : namePx,
    overflowing,
    overlapping,
    crossing,
  };
}

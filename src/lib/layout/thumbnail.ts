import type { MachineDefinition, StateId } from '../model/types.ts';

/**
 * A machine's chart in brief, for the room's cards: its top-level states (with how many
 * states each holds), which one is initial, and which top-level states a transition links.
 * Small enough to travel with the machine list; drawn by `thumbnail`.
 */
export interface ChartSketch {
  states: { key: string; nested: number }[];
  initial: number | null;
  /** Pairs of indexes into `states` (source, target), one per linked pair. */
  edges: [number, number][];
}

/** The sketch of a stored definition; null when it is not one (an empty or foreign row). */
export function sketchOf(definition: unknown): ChartSketch | null {
  const def = definition as Partial<MachineDefinition> | null;
  const root = def?.root && def.states ? def.states[def.root] : undefined;
  if (!def?.states || !root) return null;
  const states = def.states;
  const top = root.children;
  const index = new Map(top.map((id, i) => [id, i]));
  const count = (id: StateId): number => (states[id]?.children ?? []).reduce((n, child) => n + 1 + count(child), 0);
  // The top-level state a state sits in (itself when it is one); null for the root.
  const topOf = (id: StateId): number | null => {
    for (let at: StateId | null = id, steps = 0; at && steps < 1000; steps++) {
      const i = index.get(at);
      if (i !== undefined) return i;
      at = states[at]?.parent ?? null;
    }
    return null;
  };
  const seen = new Set<string>();
  const edges: [number, number][] = [];
  for (const t of Object.values(def.transitions ?? {})) {
    const from = topOf(t.source);
    for (const target of t.targets) {
      const to = topOf(target);
      const key = `${from}>${to}`;
      if (from === null || to === null || from === to || seen.has(key)) continue;
      seen.add(key);
      edges.push([from, to]);
    }
  }
  return {
    states: top.map((id) => ({ key: states[id]?.key ?? '', nested: count(id) })),
    initial: root.initial ? (index.get(root.initial) ?? null) : null,
    edges,
  };
}

export interface ThumbnailBox {
  x: number;
  y: number;
  width: number;
  height: number;
  label: string;
  nested: number;
  initial: boolean;
}

export interface Thumbnail {
  width: number;
  height: number;
  boxes: ThumbnailBox[];
  /** Straight lines between box edges, centre to centre clipped to the boxes. */
  lines: { x1: number; y1: number; x2: number; y2: number }[];
}

const GAP = 10;

/**
 * Where to draw a sketch in a `width` x `height` picture: the states on a grid (as many
 * columns as make the cells closest to the picture's shape), a line per linked pair.
 */
export function thumbnail(sketch: ChartSketch, width = 240, height = 120): Thumbnail {
  const n = sketch.states.length;
  if (n === 0) return { width, height, boxes: [], lines: [] };
  // The column count whose cells come closest to twice as wide as tall.
  let columns = 1;
  let best = Infinity;
  for (let c = 1; c <= n; c++) {
    const aspect = width / c / (height / Math.ceil(n / c));
    const off = Math.abs(Math.log(aspect / 2));
    if (off < best) {
      best = off;
      columns = c;
    }
  }
  const rows = Math.ceil(n / columns);
  const cellW = (width - GAP) / columns;
  const cellH = (height - GAP) / rows;
  const boxes = sketch.states.map((s, i) => ({
    x: GAP + (i % columns) * cellW,
    y: GAP + Math.floor(i / columns) * cellH,
    width: Math.max(4, cellW - GAP),
    height: Math.max(4, cellH - GAP),
    label: s.key,
    nested: s.nested,
    initial: sketch.initial === i,
  }));
  const centre = (b: ThumbnailBox) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });
  // The point where the segment from a box's centre towards (dx, dy) leaves the box.
  const exit = (b: ThumbnailBox, dx: number, dy: number) => {
    const c = centre(b);
    const scale = Math.min(
      dx === 0 ? Infinity : b.width / 2 / Math.abs(dx),
      dy === 0 ? Infinity : b.height / 2 / Math.abs(dy),
    );
    return { x: c.x + dx * scale, y: c.y + dy * scale };
  };
  const lines = sketch.edges.flatMap(([from, to]) => {
    const a = boxes[from];
    const b = boxes[to];
    if (!a || !b) return [];
    const dx = centre(b).x - centre(a).x;
    const dy = centre(b).y - centre(a).y;
    const p = exit(a, dx, dy);
    const q = exit(b, -dx, -dy);
    return [{ x1: p.x, y1: p.y, x2: q.x, y2: q.y }];
  });
  return { width, height, boxes, lines };
}

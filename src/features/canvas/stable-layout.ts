import { useRef } from 'react';
import type { Layout, LayoutEdge, LayoutNode, Point } from '../../lib/layout/types.ts';

/**
 * A layout whose unchanged nodes and edges are the previous layout's objects: each new
 * layout comes out of the worker as fresh objects, so without this every memoised shape
 * would redraw on every layout. With it, a shape redraws only when its own box or arrow
 * moved (and the layout object itself stays the same when nothing moved at all).
 */

const sameNode = (a: LayoutNode, b: LayoutNode): boolean =>
  a.x === b.x &&
  a.y === b.y &&
  a.width === b.width &&
  a.height === b.height &&
  a.parent === b.parent &&
  a.key === b.key &&
  a.type === b.type &&
  a.depth === b.depth &&
  a.region === b.region &&
  a.history === b.history &&
  a.initial === b.initial &&
  a.header === b.header;

const samePoints = (a: readonly Point[], b: readonly Point[]): boolean =>
  a.length === b.length && a.every((p, i) => p.x === b[i]!.x && p.y === b[i]!.y);

const sameEdge = (a: LayoutEdge, b: LayoutEdge): boolean =>
  a.transition === b.transition &&
  a.source === b.source &&
  a.target === b.target &&
  a.selfLoop === b.selfLoop &&
  a.targetless === b.targetless &&
  samePoints(a.points, b.points) &&
  (a.label === b.label ||
    (a.label !== null &&
      b.label !== null &&
      a.label.text === b.label.text &&
      a.label.x === b.label.x &&
      a.label.y === b.label.y &&
      a.label.width === b.label.width &&
      a.label.height === b.label.height));

/** `next` with each entry that equals the one in `prev` under the same id replaced by it; `changed` if any differ. */
function reuse<T>(
  prev: Record<string, T>,
  next: Record<string, T>,
  same: (a: T, b: T) => boolean,
): { out: Record<string, T>; changed: boolean } {
  const out: Record<string, T> = {};
  let changed = Object.keys(prev).length !== Object.keys(next).length;
  for (const [id, item] of Object.entries(next)) {
    const old = prev[id];
    if (old !== undefined && (old === item || same(old, item))) out[id] = old;
    else {
      out[id] = item;
      changed = true;
    }
  }
  return { out, changed };
}

/** `next`, sharing every node and edge (and, when nothing moved, the whole layout) with `prev`. */
export function stableLayout(prev: Layout | null, next: Layout): Layout {
  if (!prev || prev === next) return next;
  const nodes = reuse(prev.nodes, next.nodes, sameNode);
  const edges = reuse(prev.edges, next.edges, sameEdge);
  const sameFrame =
    prev.width === next.width &&
    prev.height === next.height &&
    prev.direction === next.direction &&
    JSON.stringify(prev.extent) === JSON.stringify(next.extent);
  if (!nodes.changed && !edges.changed && sameFrame) return prev;
  // An unchanged half stays the previous object too: what depends only on it is not redone.
  return { ...next, nodes: nodes.changed ? nodes.out : prev.nodes, edges: edges.changed ? edges.out : prev.edges };
}

/** The layout shown, kept stable across layouts (see `stableLayout`). */
export function useStableLayout(layout: Layout | null): Layout | null {
  const last = useRef<{ input: Layout | null; output: Layout | null }>({ input: null, output: null });
  if (last.current.input !== layout) {
    last.current = { input: layout, output: layout ? stableLayout(last.current.output, layout) : null };
  }
  return last.current.output;
}

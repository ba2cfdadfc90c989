import { useCallback } from 'react';
import type { Box, Layout } from '../../lib/layout/types.ts';
import { useCanvasSend } from './open-machine-context.ts';

/** Where a state, or a transition (its label, else its line), is drawn in a layout; null when it is not. */
export function elementBox(layout: Layout, id: string): Box | null {
  const node = layout.nodes[id];
  if (node) return node;
  const edge = layout.edges[id] ?? Object.values(layout.edges).find((e) => e.transition === id);
  if (!edge) return null;
  if (edge.label) return edge.label;
  if (edge.points.length === 0) return null;
  const xs = edge.points.map((p) => p.x);
  const ys = edge.points.map((p) => p.y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/**
 * Brings an element of the canvas's picture into view with room around it (a change
 * picked in the Versions panel, a thread's anchor): the canvas machine frames its box in
 * the stage it measured. False when the element is not drawn.
 */
export function useBringIntoView(): (layout: Layout | null, id: string) => boolean {
  const canvasSend = useCanvasSend();
  return useCallback(
    (layout: Layout | null, id: string) => {
      const box = layout ? elementBox(layout, id) : null;
      if (!box) return false;
      canvasSend({ type: 'canvas.frame', box });
      return true;
    },
    [canvasSend],
  );
}

import type { Box, Layout } from '../../lib/layout/types.ts';
import { placeAnchor } from '../../lib/comments/threads.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { CommentAnchor } from '../../lib/ports/comments.ts';
import { useThreads } from './comments-selectors.ts';

/** Where a pin sits in diagram units: a state's top-right corner, a transition's label (or its middle). */
function pinAt(layout: Layout, anchor: CommentAnchor): { x: number; y: number } | null {
  if (anchor.kind === 'state') {
    const node = layout.nodes[anchor.value];
    return node ? { x: node.x + node.width - 2, y: node.y + 2 } : null;
  }
  if (anchor.kind === 'transition') {
    const edge = Object.values(layout.edges).find((e) => e.transition === anchor.value);
    if (!edge) return null;
    if (edge.label) return { x: edge.label.x + edge.label.width, y: edge.label.y };
    const mid = edge.points[Math.floor(edge.points.length / 2)];
    return mid ? { x: mid.x, y: mid.y } : null;
  }
  if (anchor.kind === 'point') return pointOf(anchor.value);
  return null;
}

/** A point anchor's diagram coordinates ("x,y"), or null when it is not one. */
export function pointOf(value: string): { x: number; y: number } | null {
  const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(value);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : null;
}

/** The mark's box around the point it is drawn at (its path below), in diagram units: what framing a point shows. */
export const pinBox = (at: { x: number; y: number }): Box => ({ x: at.x - 14, y: at.y - 22, width: 28, height: 22 });

/** A drawn pin's mark box in diagram units, from its `data-pin-at` ("x,y"); null when it has none. */
export function pinBoxOf(pin: Element): Box | null {
  const at = pointOf(pin.getAttribute('data-pin-at') ?? '');
  return at ? pinBox(at) : null;
}

/**
 * The diagram's comment pins: one per state or transition with open threads, at its
 * anchor (drawn from the layout, so a pin moves with its state; a point's pin at its
 * diagram coordinates, so it moves with pan and zoom), carrying `data-comment-anchor` (the
 * state's dot path, the transition's id, or `point:x,y`), where it is drawn (`data-pin-at`,
 * diagram units) and the count.
 * A pin is a button: the diagram (Diagram.tsx) opens its newest thread in the Comments
 * panel and selects its state or transition (`data-comment-thread`, `data-comment-target`).
 */
export function CommentPins({ definition, layout }: { definition: MachineDefinition; layout: Layout }) {
  const threads = useThreads();
  const pins = new Map<
    string,
    { key: string; label: string; x: number; y: number; count: number; thread: string; target: string }
  >();
  for (const t of threads) {
    if (t.resolvedAt !== null) continue;
    const place = placeAnchor(definition, t.anchor);
    // A point is drawn where it was placed, in diagram units (it has nothing to select).
    const point = t.anchor.kind === 'point';
    const key = point ? `point:${t.anchor.value}` : place.key;
    const at = key === null ? null : pinAt(layout, t.anchor);
    if (key === null || !at) continue;
    const had = pins.get(key);
    // Threads come oldest first: the pin opens the newest.
    const pin = { key, label: place.label, ...at, thread: t.id, target: point ? '' : t.anchor.value };
    pins.set(key, { ...pin, count: (had?.count ?? 0) + 1 });
  }
  if (pins.size === 0) return null;
  return (
    <g className="comment-pins">
      {[...pins.values()].map((p) => (
        <g
          key={p.key}
          className="comment-pin"
          data-comment-anchor={p.key}
          data-comment-thread={p.thread}
          data-comment-target={p.target}
          data-pin-at={`${p.x},${p.y}`}
          transform={`translate(${p.x} ${p.y})`}
          role="button"
          tabIndex={0}
          aria-label={`${p.count} open comment thread${p.count === 1 ? '' : 's'} on ${p.label}`}
        >
          <title>{`${p.count} open thread${p.count === 1 ? '' : 's'} on ${p.label}`}</title>
          <g className="comment-pin-mark">
            <path d="M-6 -22 h12 a8 8 0 0 1 8 8 a8 8 0 0 1 -8 8 h-2 l-6 6 v-6 h-4 a8 8 0 0 1 -8 -8 a8 8 0 0 1 8 -8 z" />
            <text x={0} y={-14} textAnchor="middle" dominantBaseline="central">
              {p.count}
            </text>
          </g>
        </g>
      ))}
    </g>
  );
}

import type { Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';

export interface PeerCursor {
  id: string;
  name: string;
  color: string;
  /** World coordinates, or null when the peer's pointer is off the diagram. */
  cursor: { x: number; y: number } | null;
  /** Selected state and transition ids, outlined in the peer's colour. */
  selection: string[];
  /** A person's coding agent: it has no pointer, so its cursor sits on what it last changed. */
  agent?: boolean;
  /** Others may follow their view. */
  followable?: boolean;
  /** They ask everyone to follow them. */
  spotlight?: boolean;
}

/**
 * Where to draw each cursor: a person's where their pointer is; an agent's at the top
 * right of the first state it selected (what its last edit touched), in this layout.
 */
export function placeCursors(peers: PeerCursor[], layout: Layout | null): PeerCursor[] {
  return peers.map((p) => {
    if (!p.agent || p.cursor || !layout) return p;
    const box = p.selection.map((id) => layout.nodes[id]).find((n) => n !== undefined);
    return box ? { ...p, cursor: { x: box.x + box.width - 6, y: box.y + 6 } } : p;
  });
}

/**
 * Other people's pointers over the diagram, placed in screen space from world
 * coordinates. Movement is smoothed by a CSS transition, since cursor updates arrive at
 * most 20 times a second.
 */
export function PeerCursors({ peers, viewport }: { peers: PeerCursor[]; viewport: Viewport }) {
  return (
    <div className="peer-cursors" aria-hidden="true">
      {peers.map((p) =>
        p.cursor ? (
          <div
            key={p.id}
            className="peer-cursor"
            data-peer={p.id}
            data-agent={p.agent ? 'true' : undefined}
            style={{
              transform: `translate(${p.cursor.x * viewport.zoom + viewport.x}px, ${p.cursor.y * viewport.zoom + viewport.y}px)`,
            }}
          >
            <svg width="16" height="20" viewBox="0 0 16 20">
              <path
                d="M1,1 L1,17 L5.5,13 L8.5,19 L11,18 L8,12 L14,12 z"
                fill={p.color}
                stroke="white"
                strokeWidth="1.2"
              />
            </svg>
            <span style={{ background: p.color }}>{p.name}</span>
          </div>
        ) : null,
      )}
    </div>
  );
}

import type { Viewport } from '../../../machines/canvas.machine.ts';

export interface PeerCursor {
  id: string;
  name: string;
  color: string;
  /** World coordinates, or null when the peer's pointer is off the diagram. */
  cursor: { x: number; y: number } | null;
  /** Selected state and transition ids, outlined in the peer's colour. */
  selection: string[];
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

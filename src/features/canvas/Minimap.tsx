import { memo, type PointerEvent } from 'react';
import type { Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';

const W = 180;
const H = 120;

/** The outer states of a big chart in small, and where the view is: a click moves the view there. */
export function Minimap({
  layout,
  viewport,
  stage,
  onJump,
}: {
  layout: Layout;
  viewport: Viewport;
  stage: { width: number; height: number };
  onJump: (x: number, y: number) => void;
}) {
  const scale = Math.min(W / Math.max(1, layout.width), H / Math.max(1, layout.height));
  const view = {
    x: -viewport.x / viewport.zoom,
    y: -viewport.y / viewport.zoom,
    width: stage.width / viewport.zoom,
    height: stage.height / viewport.zoom,
  };
  const onPointerDown = (e: PointerEvent<SVGSVGElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    onJump((e.clientX - r.left) / scale, (e.clientY - r.top) / scale);
  };
  return (
    <svg
      className="minimap"
      role="img"
      aria-label="Minimap: click to move the view"
      viewBox={`0 0 ${W} ${H}`}
      onPointerDown={onPointerDown}
    >
      <MinimapStates layout={layout} scale={scale} />
      <rect
        className="mm-view"
        x={view.x * scale}
        y={view.y * scale}
        width={Math.max(2, view.width * scale)}
        height={Math.max(2, view.height * scale)}
      />
    </svg>
  );
}

/** The states at the top three levels (deeper ones would be specks), drawn once per layout. */
const MinimapStates = memo(function MinimapStates({ layout, scale }: { layout: Layout; scale: number }) {
  return (
    <>
      {Object.values(layout.nodes)
        .filter((n) => n.depth <= 2)
        .map((n) => (
          <rect
            key={n.id}
            className="mm-state"
            x={n.x * scale}
            y={n.y * scale}
            width={Math.max(1, n.width * scale)}
            height={Math.max(1, n.height * scale)}
          />
        ))}
    </>
  );
});

import { useMemo } from 'react';
import { thumbnail, type ChartSketch } from '../../lib/layout/thumbnail.ts';

/** A small picture of a machine's chart, drawn from its stored definition (no screenshot). */
export function ChartThumbnail({ name, sketch }: { name: string; sketch: ChartSketch | null | undefined }) {
  const picture = useMemo(() => (sketch ? thumbnail(sketch) : null), [sketch]);
  const width = picture?.width ?? 240;
  const height = picture?.height ?? 120;
  return (
    <svg role="img" aria-label={name} className="chart-thumb" viewBox={`0 0 ${width} ${height}`}>
      {picture?.lines.map((l, i) => (
        <line key={i} x1={l.x1} y1={l.y1} x2={l.x2} y2={l.y2} className="chart-thumb-edge" />
      ))}
      {picture?.boxes.map((b, i) => (
        <g key={i}>
          <rect
            x={b.x}
            y={b.y}
            width={b.width}
            height={b.height}
            rx={4}
            className={b.initial ? 'chart-thumb-state initial' : 'chart-thumb-state'}
          />
          {b.nested > 0 && (
            <rect
              x={b.x + 4}
              y={b.y + b.height / 2}
              width={Math.max(0, b.width - 8)}
              height={Math.max(0, b.height / 2 - 4)}
              rx={2}
              className="chart-thumb-nested"
            />
          )}
          {b.width > 24 && b.height > 12 && (
            <text x={b.x + b.width / 2} y={b.y + Math.min(b.height / 2, 13)} className="chart-thumb-label">
              {b.label.length > b.width / 6
                ? `${b.label.slice(0, Math.max(1, Math.floor(b.width / 6) - 1))}…`
                : b.label}
            </text>
          )}
        </g>
      ))}
      {!picture?.boxes.length && (
        <text x={width / 2} y={height / 2} className="chart-thumb-label">
          Empty chart
        </text>
      )}
    </svg>
  );
}

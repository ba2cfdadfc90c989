import { memo } from 'react';
import type { DiffKind } from '../../lib/canvas-ops/version-diff.ts';
import type { Layout, LayoutNode } from '../../lib/layout/types.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { EdgeShape, eventOf, labelBadges, triggerOf2 } from './edge-shape.tsx';
import { StateShape } from './state-shape.tsx';

/**
 * The drawn diagram, memoised on its inputs so panning (which only changes the outer
 * transform) re-renders nothing here. Positions animate with CSS transitions (canvas.css).
 */

export interface PeerMark {
  id: string;
  name: string;
  color: string;
  selection: string[];
}

/**
 * The tests' marks (drawn as data-covered / data-played): coverage while it is on, the
 * played step's states; and a version diff's (data-diff), by state and transition id.
 */
export interface DiagramMarks {
  covered: { states: ReadonlySet<string>; transitions: ReadonlySet<string> } | null;
  played: ReadonlySet<string>;
  diff?: ReadonlyMap<string, DiffKind>;
}

const NO_MARKS: DiagramMarks = { covered: null, played: new Set() };

interface Props {
  definition: MachineDefinition;
  layout: Layout;
  selection: string[];
  peers: PeerMark[];
  canEdit: boolean;
  /** Dot paths of the states active in the simulation shown (data-active="true"). */
  activePaths?: readonly string[];
  /** Collapsed states shown, with how many states each hides (src/lib/layout/collapse.ts). */
  hidden: Record<string, number>;
  /** Transitions enabled now in the simulation: drawn in the accent colour, their labels buttons. */
  enabled?: readonly string[];
  /** Transitions the simulation step shown just took: marked for a moment. */
  taken?: readonly string[];
  /** The step shown: a new step restarts the mark of the transitions it took. */
  step?: number | null;
  marks?: DiagramMarks;
}

const NO_IDS: readonly string[] = [];

function InitialMarker({ child }: { child: LayoutNode }) {
  const y = child.y + Math.min(18, child.height / 2);
  return (
    <g className="initial-marker" aria-hidden="true">
      <circle cx={child.x - 24} cy={y} r={4} />
      <path d={`M${child.x - 20},${y} L${child.x - 2},${y}`} markerEnd="url(#cr-arrow)" />
    </g>
  );
}

export const DiagramShapes = memo(function DiagramShapes({
  definition,
  layout,
  selection,
  peers,
  canEdit,
  activePaths = [],
  hidden,
  enabled = NO_IDS,
  taken = NO_IDS,
  step = null,
  marks = NO_MARKS,
}: Props) {
  const active = new Set(activePaths);
  const badges = labelBadges(definition, layout);
  const enabledSet = new Set(enabled);
  const takenSet = new Set(taken);
  const nodes = Object.values(layout.nodes).sort((a, b) => a.depth - b.depth);
  const colorsFor = (id: string): string[] => peers.filter((p) => p.selection.includes(id)).map((p) => p.color);
  return (
    <>
      <defs>
        <marker
          id="cr-arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M0,0 L10,5 L0,10 z" className="arrow-head" />
        </marker>
        <marker
          id="cr-arrow-on"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="6"
          markerHeight="6"
          orient="auto-start-reverse"
        >
          <path d="M0,0 L10,5 L0,10 z" className="arrow-head-on" />
        </marker>
      </defs>
      {nodes.map((n) => (
        <StateShape
          key={n.id}
          node={n}
          def={definition}
          selected={selection.includes(n.id)}
          peerColors={colorsFor(n.id)}
          canEdit={canEdit}
          active={active}
          hiddenCount={hidden[n.id]}
          marks={marks}
        />
      ))}
      {nodes.map((n) => {
        const child = n.initial ? layout.nodes[n.initial] : undefined;
        return child ? <InitialMarker key={`i-${n.id}`} child={child} /> : null;
      })}
      {/* Edges whose label can be sent now come last, drawn over the others. */}
      {Object.values(layout.edges)
        .sort((a, b) => Number(enabledSet.has(a.transition)) - Number(enabledSet.has(b.transition)))
        .map((e) => (
          <EdgeShape
            key={e.id}
            edge={e}
            selected={selection.includes(e.transition)}
            peerColors={colorsFor(e.transition)}
            event={eventOf(definition, e.transition)}
            enabled={enabledSet.has(e.transition)}
            taken={takenSet.has(e.transition)}
            step={step}
            trigger={triggerOf2(definition, e.transition)}
            badge={badges.get(e.id)?.count ?? 0}
            badgeTitle={badges.get(e.id)?.title ?? ''}
            covered={marks.covered ? marks.covered.transitions.has(e.transition) : undefined}
            diff={marks.diff?.get(e.transition)}
          />
        ))}
    </>
  );
});

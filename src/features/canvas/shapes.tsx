import { memo, useMemo } from 'react';
import { activeInside } from '../../lib/simulation/diagram.ts';
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
const NO_COLORS: readonly string[] = [];

const InitialMarker = memo(function InitialMarker({ child }: { child: LayoutNode }) {
  const y = child.y + Math.min(18, child.height / 2);
  return (
    <g className="initial-marker" aria-hidden="true">
      <circle cx={child.x - 24} cy={y} r={4} />
      <path d={`M${child.x - 20},${y} L${child.x - 2},${y}`} markerEnd="url(#cr-arrow)" />
    </g>
  );
});

/**
 * The dot path of every state drawn (the root has none), each worked out once up its
 * parents: a 1,000-state chart shown as an overview walks a few dozen states, not all.
 */
function pathsOf(def: MachineDefinition, nodes: Layout['nodes']): Map<string, string> {
  const out = new Map<string, string>();
  const pathOf = (id: string): string | undefined => {
    const known = out.get(id);
    if (known !== undefined) return known;
    const s = def.states[id];
    if (!s || s.parent === null) return undefined;
    const prefix = pathOf(s.parent);
    const path = prefix === undefined ? s.key : `${prefix}.${s.key}`;
    out.set(id, path);
    return path;
  };
  for (const id of Object.keys(nodes)) pathOf(id);
  return out;
}

/**
 * Every shape is memoised and gets only what it draws, as values or objects that stay the
 * same while its part of the chart does (the layout's nodes and edges are kept stable by
 * useStableLayout, the definition shares untouched states): a remote edit re-renders
 * this list and the shapes it changed, not every shape.
 */
export const DiagramShapes = memo(function DiagramShapes({
  definition,
  layout,
  selection,
  peers,
  canEdit,
  activePaths = NO_IDS,
  hidden,
  enabled = NO_IDS,
  taken = NO_IDS,
  step = null,
  marks = NO_MARKS,
}: Props) {
  const active = useMemo(() => new Set(activePaths), [activePaths]);
  const enabledSet = useMemo(() => new Set(enabled), [enabled]);
  const takenSet = useMemo(() => new Set(taken), [taken]);
  // Only the transitions and arrows count: a rename (which shares both) does not recount.
  const badges = useMemo(
    () => labelBadges(definition.transitions, layout.edges),
    [definition.transitions, layout.edges],
  );
  const paths = useMemo(() => pathsOf(definition, layout.nodes), [definition, layout.nodes]);
  const nodes = useMemo(() => Object.values(layout.nodes).sort((a, b) => a.depth - b.depth), [layout.nodes]);
  const edges = useMemo(
    () =>
      Object.values(layout.edges).sort(
        (a, b) => Number(enabledSet.has(a.transition)) - Number(enabledSet.has(b.transition)),
      ),
    [layout.edges, enabledSet],
  );
  const colorsFor = (id: string): readonly string[] => {
    const colors = peers.filter((p) => p.selection.includes(id)).map((p) => p.color);
    return colors.length === 0 ? NO_COLORS : colors;
  };
  const rootName = definition.name || definition.machineId || 'machine';
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
      {nodes.map((n) => {
        const state = definition.states[n.id];
        if (!state) return null;
        const path = paths.get(n.id);
        const hiddenCount = hidden[n.id];
        return (
          <StateShape
            key={n.id}
            node={n}
            state={state}
            name={n.parent === null ? rootName : state.key}
            path={path}
            selected={selection.includes(n.id)}
            peerColors={colorsFor(n.id)}
            canEdit={canEdit}
            active={path !== undefined && active.has(path)}
            inside={hiddenCount !== undefined && path !== undefined ? activeInside(activePaths, path).join(', ') : ''}
            hiddenCount={hiddenCount}
            covered={path !== undefined && marks.covered ? marks.covered.states.has(path) : undefined}
            played={path !== undefined && marks.played.has(path)}
            diff={marks.diff?.get(n.id)}
          />
        );
      })}
      {nodes.map((n) => {
        const child = n.initial ? layout.nodes[n.initial] : undefined;
        return child ? <InitialMarker key={`i-${n.id}`} child={child} /> : null;
      })}
      {/* Edges whose label can be sent now come last, drawn over the others. */}
      {edges.map((e) => {
        const event = eventOf(definition, e.transition, paths);
        const badge = badges.get(e.id);
        return (
          <EdgeShape
            key={e.id}
            edge={e}
            selected={selection.includes(e.transition)}
            peerColors={colorsFor(e.transition)}
            eventType={event?.type}
            eventSource={event?.source}
            enabled={enabledSet.has(e.transition)}
            taken={takenSet.has(e.transition)}
            step={takenSet.has(e.transition) ? step : null}
            trigger={triggerOf2(definition, e.transition)}
            badge={badge?.count ?? 0}
            badgeTitle={badge?.title ?? ''}
            covered={marks.covered ? marks.covered.transitions.has(e.transition) : undefined}
            diff={marks.diff?.get(e.transition)}
          />
        );
      })}
    </>
  );
});

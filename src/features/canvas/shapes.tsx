import { memo } from 'react';
import { triggerText, wrapLabel } from '../../lib/layout/labels.ts';
import { detailLines, tagLine } from '../../lib/layout/sizes.ts';
import { sendableType } from '../../lib/simulation/diagram.ts';
import type { Layout, LayoutEdge, LayoutNode, Point } from '../../lib/layout/types.ts';
import { keyPathOf } from '../../lib/model/tree.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';

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

/** The tests' marks (drawn as data-covered / data-played): coverage while it is on, the played step's states. */
export interface DiagramMarks {
  covered: { states: ReadonlySet<string>; transitions: ReadonlySet<string> } | null;
  played: ReadonlySet<string>;
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

/** What a transition's label sends, and from where (the diagram's test contract). */
function eventOf(def: MachineDefinition, id: string): { type: string; source: string } | null {
  const t = def.transitions[id];
  if (!t || !def.states[t.source]) return null;
  return {
    type: sendableType(def, t) ?? (typeof t.event === 'string' ? t.event : triggerOf(t.event)),
    source: keyPathOf(def, t.source).join('.'),
  };
}

/** The kind of an eventless, delayed or done transition, as its event attribute says it. */
const triggerOf = (e: Exclude<MachineDefinition['transitions'][string]['event'], string>): string =>
  'always' in e ? 'always' : 'after' in e ? `after ${e.after}` : 'done' in e ? 'done' : `${e.outcome}`;

const NO_IDS: readonly string[] = [];

/** A transition's event part as its label shows it. */
const triggerOf2 = (def: MachineDefinition, id: string): string => {
  const t = def.transitions[id];
  return t ? triggerText(def, t) : '';
};

/**
 * Far out, where transition labels are not drawn, each pair of states joined by arrows
 * shows one badge, on the first of its arrows, with how many labels are hidden there
 * (their text as its tooltip): labels give way, they do not vanish.
 */
function labelBadges(def: MachineDefinition, layout: Layout): Map<string, { count: number; title: string }> {
  const out = new Map<string, { count: number; title: string }>();
  const first = new Map<string, string>();
  for (const e of Object.values(layout.edges)) {
    if (!e.label) continue;
    const t = def.transitions[e.transition];
    const pair = t ? `${t.source}>${t.targets.join(',')}` : e.id;
    const at = first.get(pair) ?? e.id;
    first.set(pair, at);
    const b = out.get(at) ?? { count: 0, title: '' };
    out.set(at, { count: b.count + 1, title: b.title ? `${b.title}\n${e.label.text}` : e.label.text });
  }
  return out;
}

function pathOf(points: Point[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}

/** Where a line under a state's name sits: a leaf's tag line is centred like its name. */
function lineAt(compound: boolean, isTags: boolean, width: number) {
  if (isTags && !compound) return { x: width / 2, textAnchor: 'middle', className: 'st-tags' } as const;
  return { x: compound ? 14 : 12, className: isTags ? 'st-tags' : 'st-detail' } as const;
}

/** The expand/collapse switch in a compound state's top-right corner. */
function Toggle({ node, name, collapsed }: { node: LayoutNode; name: string; collapsed: boolean }) {
  return (
    <g
      className="st-toggle"
      data-toggle-for={node.id}
      role="button"
      aria-label={`${collapsed ? 'Expand' : 'Collapse'} ${name}`}
      transform={`translate(${node.width - 24} 8)`}
    >
      <rect width={16} height={16} rx={4} />
      <text x={8} y={12.5} textAnchor="middle">
        {collapsed ? '+' : '−'}
      </text>
    </g>
  );
}

function StateShape({
  node,
  def,
  selected,
  peerColors,
  canEdit,
  active,
  hiddenCount,
  marks,
}: {
  node: LayoutNode;
  def: MachineDefinition;
  selected: boolean;
  peerColors: string[];
  canEdit: boolean;
  active: ReadonlySet<string>;
  hiddenCount: number | undefined;
  marks: DiagramMarks;
}) {
  const s = def.states[node.id];
  if (!s) return null;
  // The simulation's contract: every state names its dot path, and says when it is active.
  const statePath = node.parent === null ? undefined : keyPathOf(def, node.id).join('.');
  const sim = {
    'data-state-path': statePath,
    'data-active': statePath !== undefined && active.has(statePath) ? 'true' : undefined,
    // The tests' contract: covered while coverage is on, played in the step being played.
    'data-covered': statePath !== undefined && marks.covered ? String(marks.covered.states.has(statePath)) : undefined,
    'data-played': statePath !== undefined && marks.played.has(statePath) ? 'true' : undefined,
  };
  const name = node.parent === null ? def.name || def.machineId || 'machine' : s.key;
  const label = node.parent === null ? `machine ${name}` : `state ${name}`;
  const collapsed = hiddenCount !== undefined;
  const compound = s.children.length > 0 && !collapsed;
  const cls = [
    'st',
    `st-${node.type}`,
    compound ? 'st-compound' : 'st-leaf',
    collapsed ? 'st-collapsed' : '',
    node.region ? 'st-region' : '',
    node.parent === null ? 'st-root' : '',
    selected ? 'is-selected' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const move = { transform: `translate(${node.x}px, ${node.y}px)` };
  if (node.type === 'history') {
    const r = node.width / 2;
    return (
      <g
        className={cls}
        style={move}
        data-state-id={node.id}
        {...sim}
        role="button"
        aria-label={label}
        aria-pressed={selected}
      >
        <circle cx={r} cy={r} r={r} className="st-box" />
        <text x={r} y={r + 4} textAnchor="middle" className="st-name">
          {node.history === 'deep' ? 'H*' : 'H'}
        </text>
        {peerColors.map((c, i) => (
          <circle key={c} cx={r} cy={r} r={r + 3 + i * 3} fill="none" stroke={c} strokeWidth={2} />
        ))}
      </g>
    );
  }
  // The tag line first, under the name (sizes.ts leaves room for it), then entry/exit/invoke.
  const tags = tagLine(s);
  const lines = tags === null ? detailLines(s) : [tags, ...detailLines(s)];
  if (collapsed) lines.push(`${hiddenCount.toLocaleString('en-US')} state${hiddenCount === 1 ? '' : 's'} inside`);
  const titleY = compound ? 22 : 23;
  return (
    <g
      className={cls}
      style={move}
      data-state-id={node.id}
      data-hidden={hiddenCount}
      {...sim}
      role="button"
      aria-label={label}
      aria-pressed={selected}
    >
      <rect
        className="st-box"
        width={node.width}
        height={node.height}
        rx={node.region ? 4 : 10}
        style={{ width: node.width, height: node.height }}
      />
      {node.type === 'final' && (
        <rect
          className="st-inner"
          x={4}
          y={4}
          width={node.width - 8}
          height={node.height - 8}
          rx={7}
          style={{ width: node.width - 8, height: node.height - 8 }}
        />
      )}
      <text
        x={compound ? 14 : node.width / 2}
        y={titleY}
        textAnchor={compound ? 'start' : 'middle'}
        className="st-name"
      >
        {name}
      </text>
      {lines.map((l, i) => (
        <text key={i} y={titleY + 18 + i * 16} {...lineAt(compound, tags !== null && i === 0, node.width)}>
          {l}
        </text>
      ))}
      {peerColors.map((c, i) => (
        <rect
          key={c}
          className="peer-outline"
          x={-3 - i * 3}
          y={-3 - i * 3}
          width={node.width + 6 + i * 6}
          height={node.height + 6 + i * 6}
          rx={12}
          stroke={c}
        />
      ))}
      {s.children.length > 0 && node.parent !== null && <Toggle node={node} name={name} collapsed={collapsed} />}
      {canEdit && node.parent !== null && (
        <circle
          className="st-handle"
          data-handle-for={node.id}
          cx={node.width}
          cy={node.height / 2}
          r={6}
          aria-hidden="true"
        />
      )}
    </g>
  );
}

function EdgeShape({
  edge,
  selected,
  peerColors,
  event,
  enabled,
  taken,
  step,
  trigger,
  badge,
  badgeTitle,
  covered,
}: {
  edge: LayoutEdge;
  selected: boolean;
  peerColors: string[];
  event: { type: string; source: string } | null;
  enabled: boolean;
  taken: boolean;
  step: number | null;
  /** The label's event part (drawn in medium weight; guard and actions lighter). */
  trigger: string;
  /** Far out, where labels are not drawn: how many labels this arrow and its twins carry (0: none shown here). */
  badge: number;
  badgeTitle: string;
  /** Taken by some test or simulation (coverage on), or not; undefined while coverage is off. */
  covered: boolean | undefined;
}) {
  const d = pathOf(edge.points);
  const cls = [
    'tr',
    edge.targetless ? 'tr-targetless' : '',
    selected ? 'is-selected' : '',
    enabled ? 'is-enabled' : '',
    taken ? 'is-taken' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const name = edge.label?.text ?? '';
  // While its event can be sent, the label is the button (named by the event type); the
  // arrow keeps selecting the transition.
  const send = enabled && event !== null;
  return (
    <g
      className={cls}
      data-transition-id={edge.transition}
      data-covered={covered === undefined ? undefined : String(covered)}
      role={send ? undefined : 'button'}
      aria-label={send ? undefined : `transition ${name}`}
      aria-pressed={send ? undefined : selected}
    >
      <path d={d} className="tr-hit" />
      <path d={d} className="tr-line" markerEnd={enabled ? 'url(#cr-arrow-on)' : 'url(#cr-arrow)'} />
      {/* Keyed by the step: a new step that takes this transition again restarts its mark. */}
      {taken && <path key={`taken-${step ?? 0}`} d={d} className="tr-taken" />}
      {peerColors.map((c) => (
        <path key={c} d={d} className="peer-line" stroke={c} />
      ))}
      {edge.label && badge > 0 && (
        <g
          className="tr-badge"
          style={{
            transform: `translate(${edge.label.x + edge.label.width / 2}px, ${edge.label.y + edge.label.height / 2}px)`,
          }}
          aria-hidden="true"
        >
          <title>{badgeTitle}</title>
          <g className="tr-badge-in">
            <circle r={8} />
            <text y={3.5} textAnchor="middle">
              {badge}
            </text>
          </g>
        </g>
      )}
      {edge.label && (
        <g
          style={{ transform: `translate(${edge.label.x}px, ${edge.label.y}px)` }}
          className="tr-label"
          data-transition-event={event?.type}
          data-source-path={event?.source}
          data-send-event={send ? event.type : undefined}
          role={send ? 'button' : undefined}
          aria-label={send ? event.type : undefined}
          tabIndex={send ? 0 : undefined}
        >
          <g className="tr-pill" style={{ transformOrigin: `${edge.label.width / 2}px ${edge.label.height / 2}px` }}>
            <rect width={edge.label.width} height={edge.label.height} rx={8} />
            <PillText text={edge.label.text} trigger={trigger} x={edge.label.width / 2} />
          </g>
        </g>
      )}
    </g>
  );
}

/** A label's lines (wrapped as the layout sized them), the event in medium weight. */
function PillText({ text, trigger, x }: { text: string; trigger: string; x: number }) {
  const lines = wrapLabel(text);
  return (
    <text x={x} y={12} textAnchor="middle">
      {lines.map((line, i) => {
        const lead = i === 0 && line.startsWith(trigger) ? trigger : '';
        return (
          <tspan key={i} x={x} dy={i === 0 ? 0 : 14}>
            {lead && <tspan className="tr-event">{lead}</tspan>}
            {lead ? line.slice(lead.length) : line}
          </tspan>
        );
      })}
    </text>
  );
}

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
          />
        ))}
    </>
  );
});

import { memo } from 'react';
import type { DiffKind } from '../../lib/canvas-ops/version-diff.ts';
import { triggerText, wrapLabel } from '../../lib/layout/labels.ts';
import type { Layout, LayoutEdge, Point } from '../../lib/layout/types.ts';
import { keyPathOf } from '../../lib/model/tree.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { sendableType } from '../../lib/simulation/diagram.ts';

/** A transition as drawn: its arrow, its label's pill (a button while it can be sent), and far out a badge. */

/** What a transition's label sends, and from where (the diagram's test contract); `paths`: states' dot paths, when known. */
export function eventOf(
  def: MachineDefinition,
  id: string,
  paths?: ReadonlyMap<string, string>,
): { type: string; source: string } | null {
  const t = def.transitions[id];
  if (!t || !def.states[t.source]) return null;
  return {
    type: sendableType(def, t) ?? (typeof t.event === 'string' ? t.event : triggerOf(t.event)),
    source: paths?.get(t.source) ?? keyPathOf(def, t.source).join('.'),
  };
}

/** The kind of an eventless, delayed or done transition, as its event attribute says it. */
const triggerOf = (e: Exclude<MachineDefinition['transitions'][string]['event'], string>): string =>
  'always' in e ? 'always' : 'after' in e ? `after ${e.after}` : 'done' in e ? 'done' : `${e.outcome}`;

/** A transition's event part as its label shows it. */
export const triggerOf2 = (def: MachineDefinition, id: string): string => {
  const t = def.transitions[id];
  return t ? triggerText(def, t) : '';
};

/**
 * Far out, where transition labels are not drawn, each pair of states joined by arrows
 * shows one badge, on the first of its arrows, with how many labels are hidden there
 * (their text as its tooltip): labels give way, they do not vanish.
 */
export function labelBadges(
  transitions: MachineDefinition['transitions'],
  edges: Layout['edges'],
): Map<string, { count: number; title: string }> {
  const out = new Map<string, { count: number; title: string }>();
  const first = new Map<string, string>();
  for (const e of Object.values(edges)) {
    if (!e.label) continue;
    const t = transitions[e.transition];
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

/**
 * Memoised like StateShape: its props are strings, numbers, booleans and the layout's own
 * edge (the same object while the arrow did not move), so a remote edit redraws only the
 * arrows it changed.
 */
export const EdgeShape = memo(function EdgeShape({
  edge,
  selected,
  peerColors,
  eventType,
  eventSource,
  enabled,
  taken,
  step,
  trigger,
  badge,
  badgeTitle,
  covered,
  diff,
}: {
  edge: LayoutEdge;
  selected: boolean;
  peerColors: readonly string[];
  /** What the label sends, and the dot path it is sent from (eventOf); undefined when the transition is gone. */
  eventType: string | undefined;
  eventSource: string | undefined;
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
  /** In a version diff: added, removed or changed (undefined: the same, or no diff shown). */
  diff?: DiffKind | undefined;
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
  const send = enabled && eventType !== undefined;
  return (
    <g
      className={cls}
      data-transition-id={edge.transition}
      data-covered={covered === undefined ? undefined : String(covered)}
      data-diff={diff}
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
          data-transition-event={eventType}
          data-source-path={eventSource}
          data-send-event={send ? eventType : undefined}
          role={send ? 'button' : undefined}
          aria-label={send ? eventType : undefined}
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
});

/**
 * A label's lines (wrapped as the layout sized them), the event in medium weight; memoised,
 * so an arrow redrawn for another reason (its source's path after a rename above it) keeps its text.
 */
const PillText = memo(function PillText({ text, trigger, x }: { text: string; trigger: string; x: number }) {
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
});

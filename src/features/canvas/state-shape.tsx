import { memo } from 'react';
import { estimateText } from '../../lib/layout/labels.ts';
import { detailLines, GEOMETRY, tagLine } from '../../lib/layout/sizes.ts';
import type { LayoutNode } from '../../lib/layout/types.ts';
import type { StateNode } from '../../lib/model/types.ts';
import { titleY as titleYOf } from '../../lib/layout/readability.ts';
import { nameRoom } from './name-room.ts';
import type { DiffKind } from '../../lib/canvas-ops/version-diff.ts';

/** A state as drawn: its box, name, tag and detail lines, switch, handle and peers' outlines. */

/** Where a line under a state's name sits: a leaf's tag line is centred like its name. */
function lineAt(compound: boolean, isTags: boolean, width: number) {
  if (isTags && !compound) return { x: width / 2, textAnchor: 'middle', className: 'st-tags' } as const;
  return { x: compound ? 14 : 12, className: isTags ? 'st-tags' : 'st-detail' } as const;
}

/**
 * A collapsed state's line saying which states inside it are active (`▶ retrying`), cut
 * from the front with an ellipsis to the box's width (the deepest state matters most).
 */
export function insideLine(inside: readonly string[], width: number): string {
  const room = width - 2 * GEOMETRY.pad;
  let text = inside.join(', ');
  if (estimateText(`▶ ${text}`, 'edge') <= room) return `▶ ${text}`;
  while (text.length > 1 && estimateText(`▶ …${text}`, 'edge') > room) text = text.slice(1);
  return `▶ …${text}`;
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

export interface StateShapeProps {
  node: LayoutNode;
  state: StateNode;
  /** What the box says: the state's key, or the machine's name on the root. */
  name: string;
  /** The state's dot path (the simulation's and tests' contract); undefined on the root. */
  path: string | undefined;
  selected: boolean;
  peerColors: readonly string[];
  canEdit: boolean;
  active: boolean;
  /** A collapsed state's active states inside it, as its line says them (`a, b.c`); '' for none. */
  inside: string;
  hiddenCount: number | undefined;
  covered: boolean | undefined;
  played: boolean;
  diff: DiffKind | undefined;
}

/**
 * Memoised, and every prop a string, number, boolean or an object that stays the same
 * while this state's part of the chart does (DiagramShapes): a remote edit redraws the
 * states it changed, not the chart.
 */
export const StateShape = memo(function StateShape({
  node,
  state: s,
  name,
  path: statePath,
  selected,
  peerColors,
  canEdit,
  active,
  inside: insideText,
  hiddenCount,
  covered,
  played,
  diff,
}: StateShapeProps) {
  const sim = {
    'data-state-path': statePath,
    'data-active': active ? 'true' : undefined,
    // The tests' contract: covered while coverage is on, played in the step being played.
    'data-covered': covered === undefined ? undefined : String(covered),
    'data-played': played ? 'true' : undefined,
    // A version diff's contract: added, removed or changed since the version compared.
    'data-diff': diff,
  };
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
        <text
          x={r}
          y={r + 4}
          textAnchor="middle"
          className="st-name"
          style={{ ['--name-room' as string]: nameRoom(node, 'H*', false).toFixed(2) }}
        >
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
  // A collapsed state holding active states is drawn active (its own path is active too)
  // and, in place of its count, says which (the box has room for one caption line).
  const inside = insideText === '' ? [] : insideText.split(', ');
  const count = collapsed ? `${hiddenCount.toLocaleString('en-US')} state${hiddenCount === 1 ? '' : 's'} inside` : '';
  if (collapsed && inside.length === 0) lines.push(count);
  const titleY = titleYOf(compound);
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
        style={{ ['--name-room' as string]: nameRoom(node, name, compound).toFixed(2) }}
      >
        {name}
      </text>
      {lines.map((l, i) => (
        <text key={i} y={titleY + 18 + i * 16} {...lineAt(compound, tags !== null && i === 0, node.width)}>
          {l}
        </text>
      ))}
      {inside.length > 0 && (
        <text y={titleY + 18 + lines.length * 16} {...lineAt(false, false, node.width)} className="st-detail st-inside">
          <title>{`${count}; active: ${inside.join(', ')}`}</title>
          {insideLine(inside, node.width)}
        </text>
      )}
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
});

import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { stateOf } from '../model/tree.ts';
import type { MachineDefinition } from '../model/types.ts';
import { routeOf } from './segments.ts';
import { headerHeight, labelRoom } from './sizes.ts';
import type { Layout, LayoutDirection, LayoutEdge, LayoutNode, Point } from './types.ts';

/** An ELK edge with the offset of the graph that holds it (ELK's coordinates are relative). */
interface Placed {
  edge: ElkExtendedEdge;
  dx: number;
  dy: number;
}

/** ELK's result (laid out flowing `direction`) -> the positioned diagram the view draws, absolute, the root at 0,0. */
export function mapElkResult(def: MachineDefinition, graph: ElkNode, direction: LayoutDirection = 'RIGHT'): Layout {
  const room = labelRoom(direction);
  const rootElk = graph.children?.[0];
  if (!rootElk) throw new Error('layout result has no root node');
  const nodes: Record<string, LayoutNode> = {};
  const elkEdges = new Map<string, Placed>();
  // The wrapper's own offset is dropped: the root sits at 0,0.
  const ox = -(rootElk.x ?? 0);
  const oy = -(rootElk.y ?? 0);
  for (const e of graph.edges ?? []) elkEdges.set(e.id, { edge: e, dx: ox, dy: oy });

  const visit = (n: ElkNode, depth: number, px: number, py: number): void => {
    const s = stateOf(def, n.id);
    const parent = s.parent !== null ? def.states[s.parent] : undefined;
    const x = px + (n.x ?? 0);
    const y = py + (n.y ?? 0);
    nodes[n.id] = {
      id: n.id,
      parent: s.parent,
      key: s.key,
      type: s.type,
      depth,
      region: parent?.type === 'parallel',
      history: s.history,
      initial: s.initial,
      header: s.children.length > 0 ? headerHeight(s) : 0,
      x,
      y,
      width: n.width ?? 0,
      height: n.height ?? 0,
    };
    for (const e of n.edges ?? []) elkEdges.set(e.id, { edge: e, dx: x, dy: y });
    for (const c of n.children ?? []) visit(c, depth + 1, x, y);
  };
  visit(rootElk, 0, ox, oy);

  const edges: Record<string, LayoutEdge> = {};
  for (const t of Object.values(def.transitions)) {
    const targets = t.targets.length === 0 ? [t.source] : t.targets;
    targets.forEach((target, i) => {
      const id = i === 0 ? t.id : `${t.id}#${i}`;
      const pieces = routeOf(def, t.source, target).pieces.map((p) => elkEdges.get(p.id));
      edges[id] = {
        ...joined(pieces, i === 0 ? t.id : null, room),
        id,
        transition: t.id,
        source: t.source,
        target,
        selfLoop: t.source === target,
        targetless: t.targets.length === 0,
      };
    });
  }
  const width = rootElk.width ?? 0;
  const height = rootElk.height ?? 0;
  // The root's own loops run around its box: the extent takes them and their labels in.
  let [x0, y0, x1, y1] = [0, 0, width, height];
  for (const e of Object.values(edges))
    for (const p of e.label
      ? [...e.points, e.label, { x: e.label.x + e.label.width, y: e.label.y + e.label.height }]
      : e.points) {
      x0 = Math.min(x0, p.x);
      y0 = Math.min(y0, p.y);
      x1 = Math.max(x1, p.x);
      y1 = Math.max(y1, p.y);
    }
  const outside = x0 < 0 || y0 < 0 || x1 > width || y1 > height;
  return {
    nodes,
    edges,
    width,
    height,
    ...(outside ? { extent: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } } : {}),
  };
}

/** A drawn edge's pieces joined end to end (they meet at border ports), with its label. */
function joined(
  pieces: (Placed | undefined)[],
  labelId: string | null,
  room: { x: number; y: number },
): Pick<LayoutEdge, 'points' | 'label'> {
  const points: Point[] = [];
  let label: LayoutEdge['label'] = null;
  for (const piece of pieces) {
    if (!piece) continue;
    const { edge, dx, dy } = piece;
    const add = (p: { x: number; y: number }): void => {
      const last = points[points.length - 1];
      const x = p.x + dx;
      const y = p.y + dy;
      if (last && Math.abs(last.x - x) < 0.01 && Math.abs(last.y - y) < 0.01) return;
      points.push({ x, y });
    };
    for (const section of edge.sections ?? []) {
      add(section.startPoint);
      for (const b of section.bendPoints ?? []) add(b);
      add(section.endPoint);
    }
    const l = labelId === null ? undefined : edge.labels?.find((x) => x.id === labelId);
    if (l) {
      // ELK placed the label with room around it (elk-input.ts): the pill is the middle.
      const width = (l.width ?? 0) / room.x;
      const height = (l.height ?? 0) / room.y;
      label = {
        text: l.text ?? '',
        x: (l.x ?? 0) + dx + ((l.width ?? 0) - width) / 2,
        y: (l.y ?? 0) + dy + ((l.height ?? 0) - height) / 2,
        width,
        height,
      };
    }
  }
  return { points, label };
}

import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { stateOf } from '../model/tree.ts';
import type { MachineDefinition } from '../model/types.ts';
import { headerHeight } from './sizes.ts';
import type { Layout, LayoutEdge, LayoutNode, Point } from './types.ts';

/** ELK's result -> the positioned diagram the view draws, shifted so the root is at 0,0. */
export function mapElkResult(def: MachineDefinition, graph: ElkNode): Layout {
  const rootElk = graph.children?.[0];
  if (!rootElk) throw new Error('layout result has no root node');
  const ox = rootElk.x ?? 0;
  const oy = rootElk.y ?? 0;
  const nodes: Record<string, LayoutNode> = {};

  const visit = (n: ElkNode, depth: number): void => {
    const s = stateOf(def, n.id);
    const parent = s.parent !== null ? def.states[s.parent] : undefined;
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
      x: (n.x ?? 0) - ox,
      y: (n.y ?? 0) - oy,
      width: n.width ?? 0,
      height: n.height ?? 0,
    };
    for (const c of n.children ?? []) visit(c, depth + 1);
  };
  visit(rootElk, 0);

  const edges: Record<string, LayoutEdge> = {};
  for (const e of graph.edges ?? []) {
    const hash = e.id.indexOf('#');
    const transitionId = hash < 0 ? e.id : e.id.slice(0, hash);
    const t = def.transitions[transitionId];
    if (!t) continue;
    const points: Point[] = [];
    for (const section of e.sections ?? []) {
      points.push({ x: section.startPoint.x - ox, y: section.startPoint.y - oy });
      for (const b of section.bendPoints ?? []) points.push({ x: b.x - ox, y: b.y - oy });
      points.push({ x: section.endPoint.x - ox, y: section.endPoint.y - oy });
    }
    const l = e.labels?.[0];
    const source = e.sources[0] ?? t.source;
    const target = e.targets[0] ?? t.source;
    edges[e.id] = {
      id: e.id,
      transition: transitionId,
      source,
      target,
      points,
      label: l ? { text: l.text ?? '', x: (l.x ?? 0) - ox, y: (l.y ?? 0) - oy, width: l.width ?? 0, height: l.height ?? 0 } : null,
      selfLoop: source === target,
      targetless: t.targets.length === 0,
    };
  }
  return { nodes, edges, width: rootElk.width ?? 0, height: rootElk.height ?? 0 };
}

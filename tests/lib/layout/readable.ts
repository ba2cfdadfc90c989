import { expect } from 'vitest';
import type { MachineDefinition } from '../../../src/lib/model/index.ts';
import type { Box, Layout, Point } from '../../../src/lib/layout/index.ts';

/**
 * What makes a diagram readable: every state and every transition target is placed,
 * children lie inside their parent below its header, siblings (regions of a parallel
 * state included) never overlap, every edge is one connected orthogonal polyline from its
 * source's border to its target's border, self-transitions are loops, and labels sit on no state.
 */
const EPS = 0.5;

const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width - EPS && b.x < a.x + a.width - EPS && a.y < b.y + b.height - EPS && b.y < a.y + a.height - EPS;

const onBorder = (p: Point, b: Box): boolean => {
  const inX = p.x >= b.x - EPS && p.x <= b.x + b.width + EPS;
  const inY = p.y >= b.y - EPS && p.y <= b.y + b.height + EPS;
  const nearX = Math.abs(p.x - b.x) < 1 || Math.abs(p.x - b.x - b.width) < 1;
  const nearY = Math.abs(p.y - b.y) < 1 || Math.abs(p.y - b.y - b.height) < 1;
  return (nearX && inY) || (nearY && inX);
};

export function checkReadable(def: MachineDefinition, layout: Layout): void {
  expect(Object.keys(layout.nodes).sort()).toEqual(Object.keys(def.states).sort());
  const children = new Map<string, string[]>();
  for (const n of Object.values(layout.nodes)) {
    expect(n.width).toBeGreaterThan(0);
    expect(n.height).toBeGreaterThan(0);
    if (n.parent === null) continue;
    const p = layout.nodes[n.parent];
    if (!p) throw new Error(`no parent for ${n.id}`);
    expect(n.x).toBeGreaterThanOrEqual(p.x - EPS);
    expect(n.y).toBeGreaterThanOrEqual(p.y + p.header - EPS);
    expect(n.x + n.width).toBeLessThanOrEqual(p.x + p.width + EPS);
    expect(n.y + n.height).toBeLessThanOrEqual(p.y + p.height + EPS);
    expect(n.region).toBe(def.states[n.parent]?.type === 'parallel');
    children.set(n.parent, [...(children.get(n.parent) ?? []), n.id]);
  }
  for (const [parent, ids] of children) {
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const a = layout.nodes[ids[i] as string] as Box;
        const b = layout.nodes[ids[j] as string] as Box;
        expect(overlap(a, b), `${ids[i]} and ${ids[j]} overlap in ${parent}`).toBe(false);
      }
    }
  }

  const leaves = Object.values(layout.nodes).filter((n) => (def.states[n.id]?.children.length ?? 0) === 0);
  for (const t of Object.values(def.transitions)) {
    const targets = t.targets.length === 0 ? [t.source] : t.targets;
    targets.forEach((target, i) => {
      const id = i === 0 ? t.id : `${t.id}#${i}`;
      const e = layout.edges[id];
      if (!e) throw new Error(`transition ${id} not placed`);
      expect(e).toMatchObject({
        transition: t.id,
        source: t.source,
        target,
        selfLoop: t.source === target,
        targetless: t.targets.length === 0,
      });
      expect(e.points.length).toBeGreaterThanOrEqual(2);
      // Routing is orthogonal, so a diagonal step would be two pieces that do not meet.
      e.points.forEach((p, k) => {
        const q = e.points[k + 1];
        if (q)
          expect(Math.min(Math.abs(p.x - q.x), Math.abs(p.y - q.y)), `${id} has a diagonal step`).toBeLessThan(EPS);
      });
      const src = layout.nodes[t.source] as Box;
      const tgt = layout.nodes[target] as Box;
      expect(onBorder(e.points[0] as Point, src), `${id} starts on its source's border`).toBe(true);
      expect(onBorder(e.points[e.points.length - 1] as Point, tgt), `${id} ends on its target's border`).toBe(true);
      if (i === 0) {
        expect(e.label?.text.length).toBeGreaterThan(0);
        const label = e.label as Box;
        for (const leaf of leaves) expect(overlap(label, leaf), `label of ${id} on ${leaf.id}`).toBe(false);
      } else expect(e.label).toBeNull();
    });
  }
  expect(Object.keys(layout.edges)).toHaveLength(
    Object.values(def.transitions).reduce((n, t) => n + Math.max(1, t.targets.length), 0),
  );
}

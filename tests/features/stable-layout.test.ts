import { describe, expect, it } from 'vitest';
import type { Layout, LayoutEdge, LayoutNode } from '../../src/lib/layout/types.ts';
import { stableLayout } from '../../src/features/canvas/stable-layout.ts';

const node = (id: string, key: string, x: number): LayoutNode => ({
  id,
  parent: id === 'root' ? null : 'root',
  key,
  type: 'atomic',
  depth: id === 'root' ? 0 : 1,
  region: false,
  history: null,
  initial: null,
  header: 0,
  x,
  y: 0,
  width: 80,
  height: 40,
});

const edge = (id: string, source: string, target: string, y: number): LayoutEdge => ({
  id,
  transition: id,
  source,
  target,
  points: [
    { x: 80, y },
    { x: 120, y },
  ],
  label: { text: 'GO', x: 90, y: y - 10, width: 20, height: 12 },
  selfLoop: false,
  targetless: false,
});

/** A fresh layout, as the worker answers: every object new. */
const layoutOf = (bKey: string, edgeY: number): Layout => ({
  nodes: { root: node('root', '', 0), a: node('a', 'a', 0), b: node('b', bKey, 120) },
  edges: { t1: edge('t1', 'a', 'b', edgeY) },
  width: 200,
  height: 40,
});

describe('the layout shown, kept stable across layouts', () => {
  it('keeps the previous layout whole when nothing moved or changed', () => {
    const prev = layoutOf('b', 20);
    expect(stableLayout(prev, layoutOf('b', 20))).toBe(prev);
  });

  it('after a rename that moves no arrow, keeps the arrows object and every other box', () => {
    const prev = layoutOf('b', 20);
    const next = stableLayout(prev, layoutOf('renamed', 20));
    expect(next).not.toBe(prev);
    expect(next.edges).toBe(prev.edges);
    expect(next.nodes).not.toBe(prev.nodes);
    expect(next.nodes.a).toBe(prev.nodes.a);
    expect(next.nodes.b).not.toBe(prev.nodes.b);
    expect(next.nodes.b!.key).toBe('renamed');
  });

  it('keeps the boxes object when only an arrow moved', () => {
    const prev = layoutOf('b', 20);
    const next = stableLayout(prev, layoutOf('b', 24));
    expect(next.nodes).toBe(prev.nodes);
    expect(next.edges).not.toBe(prev.edges);
    expect(next.edges.t1!.points[0]!.y).toBe(24);
  });
});

import type { Box, Layout, LayoutNode } from '../../src/lib/layout/types.ts';

/** A chart `width` x `height` whose root starts in a 100 x 60 state at `initial`. */
export function chart(width: number, height: number, initial = { x: 0, y: 0 }): Layout {
  const node = (id: string, parent: string | null, box: Box): LayoutNode => ({
    ...box,
    id,
    parent,
    key: id,
    type: 'compound',
    depth: parent ? 1 : 0,
    region: false,
    history: null,
    initial: parent ? null : 'first',
    header: 0,
  });
  return {
    nodes: {
      root: node('root', null, { x: 0, y: 0, width, height }),
      first: node('first', 'root', { ...initial, width: 100, height: 60 }),
    },
    edges: {},
    width,
    height,
  };
}

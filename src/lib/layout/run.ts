import type { ElkNode } from 'elkjs/lib/elk-api.js';
import type { MachineDefinition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { buildElkGraph } from './elk-input.ts';
import { mapElkResult } from './elk-output.ts';
import type { Layout, LayoutHints } from './types.ts';

/** The one method of an ELK instance we use (elk.bundled in Node and in the worker). */
export interface ElkLike {
  layout(graph: ElkNode): Promise<ElkNode>;
}

/** Definition -> positioned diagram: the same function in the worker, the tests and the bench. */
export async function layoutDefinition(elk: ElkLike, def: MachineDefinition, measure: TextMeasure, hints: LayoutHints | null = null): Promise<Layout> {
  const result = await elk.layout(buildElkGraph(def, measure, hints));
  return mapElkResult(def, result);
}

/** What the next layout of the same machine reuses from this one. */
export function hintsFrom(layout: Layout): LayoutHints {
  const sizes: LayoutHints['sizes'] = {};
  const positions: LayoutHints['positions'] = {};
  for (const n of Object.values(layout.nodes)) {
    sizes[n.id] = { width: n.width, height: n.height };
    positions[n.id] = { x: n.x, y: n.y };
  }
  return { sizes, positions };
}

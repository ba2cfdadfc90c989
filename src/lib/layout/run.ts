import type { ElkNode } from 'elkjs/lib/elk-api.js';
import type { MachineDefinition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { boxCached, restoreAndStore, signatures, type LayoutCache } from './cache.ts';
import { buildElkGraph } from './elk-input.ts';
import { mapElkResult } from './elk-output.ts';
import type { Layout, LayoutDirection, LayoutHints } from './types.ts';

/** The one method of an ELK instance we use (elk.bundled in Node and in the worker). */
export interface ElkLike {
  layout(graph: ElkNode): Promise<ElkNode>;
}

/**
 * Definition -> positioned diagram: the same function in the worker, the tests and the
 * bench. With a cache (the worker keeps one), compounds whose inside did not change since
 * the last run are not laid out again (cache.ts); the result is the same either way.
 * `sameRun` adds to the cache's current run instead of starting one (a second direction
 * tried for the same request keeps the first one's entries).
 */
export async function layoutDefinition(
  elk: ElkLike,
  def: MachineDefinition,
  measure: TextMeasure,
  hints: LayoutHints | null = null,
  cache: LayoutCache | null = null,
  direction: LayoutDirection = 'RIGHT',
  sameRun = false,
): Promise<Layout> {
  const graph = buildElkGraph(def, measure, hints, direction);
  if (!cache) return { ...mapElkResult(def, await elk.layout(graph), direction), direction };
  if (!sameRun) cache.startRun();
  const sigs = signatures(graph);
  const boxed = boxCached(graph, sigs, cache);
  const result = await elk.layout(graph);
  restoreAndStore(result, boxed, sigs, cache);
  return { ...mapElkResult(def, result, direction), direction };
}

/** What the next layout of the same machine reuses from this one. */
export function hintsFrom(layout: Layout): LayoutHints {
  const sizes: LayoutHints['sizes'] = {};
  const positions: LayoutHints['positions'] = {};
  for (const n of Object.values(layout.nodes)) {
    sizes[n.id] = { width: n.width, height: n.height };
    positions[n.id] = { x: n.x, y: n.y };
  }
  return layout.direction ? { sizes, positions, direction: layout.direction } : { sizes, positions };
}

/// <reference lib="webworker" />
import ELK from 'elkjs/lib/elk.bundled.js';
import { LayoutCache } from '../../lib/layout/cache.ts';
import { layoutDefinition } from '../../lib/layout/run.ts';
import type { LayoutRequest, LayoutResult } from '../../lib/ports/layout.ts';
import { canvasMeasure } from './measure.ts';

/**
 * Runs elkjs off the main thread: `{ id, request }` in, `{ id, result }` out. elk.bundled
 * notices it is inside a worker and claims `onmessage` for its own protocol; we never use
 * that protocol, so we clear it and listen with addEventListener instead.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;
scope.onmessage = null;
const elk = new ELK();
const measure = canvasMeasure();
// Compound insides from the previous layout: an edit re-lays out only what it touched.
const cache = new LayoutCache();

scope.addEventListener('message', (e: MessageEvent<{ id: number; request: LayoutRequest }>) => {
  const { id, request } = e.data;
  layoutDefinition(elk, request.definition, measure, request.hints, cache).then(
    (layout) => scope.postMessage({ id, result: { ok: true, layout } satisfies LayoutResult }),
    (err: unknown) =>
      scope.postMessage({
        id,
        result: { ok: false, message: err instanceof Error ? err.message : String(err) } satisfies LayoutResult,
      }),
  );
});

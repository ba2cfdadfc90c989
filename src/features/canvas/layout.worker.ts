/// <reference lib="webworker" />
import ELK from 'elkjs/lib/elk.bundled.js';
import { LayoutCache } from '../../lib/layout/cache.ts';
import { generateChart } from '../../lib/layout/generate.ts';
import { layoutForPane } from '../../lib/layout/direction.ts';
import { layoutDefinition } from '../../lib/layout/run.ts';
import type { LayoutRequest, LayoutResult } from '../../lib/ports/layout.ts';
import { canvasMeasure } from './measure.ts';

/**
 * Runs elkjs off the main thread: `{ id, request }` in, `{ id, result }` out. elk.bundled
 * notices it is inside a worker and claims `onmessage` for its own protocol; we never use
 * that protocol, so we clear it and listen with addEventListener instead.
 *
 * A fresh worker's elkjs is cold: its first layouts of a few dozen states take 0.5-0.9 s
 * where a warm one takes 40 ms. So once the first chart is drawn, the worker lays out a
 * 40-state chart of its own, unasked, and throws the result away: the next real layout
 * (a pasted or received big chart) runs warm.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;
scope.onmessage = null;
const elk = new ELK();
const measure = canvasMeasure();
// Compound insides from the previous layout: an edit re-lays out only what it touched.
const cache = new LayoutCache();

let warm: Promise<unknown> | null = null;
const warmUp = (): void => {
  warm ??= layoutDefinition(elk, generateChart(40), measure).catch(() => undefined);
};

scope.addEventListener('message', (e: MessageEvent<{ id: number; request: LayoutRequest }>) => {
  const { id, request } = e.data;
  const answered = layoutForPane(elk, request.definition, measure, request.hints, cache, request.aspect ?? null).then(
    (layout) => scope.postMessage({ id, result: { ok: true, layout } satisfies LayoutResult }),
    (err: unknown) =>
      scope.postMessage({
        id,
        result: { ok: false, message: err instanceof Error ? err.message : String(err) } satisfies LayoutResult,
      }),
  );
  void answered.then(() => setTimeout(warmUp, 0));
});

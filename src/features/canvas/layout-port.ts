import type { LayoutPort, LayoutResult } from '../../lib/ports/layout.ts';

/**
 * The browser's layout engine: one Web Worker running elkjs (layout.worker.ts), answers
 * matched to requests by id. A worker that fails to start or crashes answers every
 * open request with a failure, so the layout machine never waits forever. Made and
 * closed by the layout machine's `engine` actor (src/app/layout.ts), never by a view.
 */
export function workerLayoutEngine(): { port: LayoutPort; close: () => void } {
  const worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
  const open = new Map<number, (r: LayoutResult) => void>();
  let next = 1;
  worker.addEventListener('message', (e: MessageEvent<{ id?: number; result?: LayoutResult }>) => {
    if (typeof e.data.id !== 'number' || !e.data.result) return;
    open.get(e.data.id)?.(e.data.result);
    open.delete(e.data.id);
  });
  worker.addEventListener('error', (e) => {
    for (const resolve of open.values()) resolve({ ok: false, message: e.message || 'The layout worker failed.' });
    open.clear();
  });
  const port: LayoutPort = (request) =>
    new Promise((resolve) => {
      const id = next++;
      open.set(id, resolve);
      worker.postMessage({ id, request });
    });
  return { port, close: () => worker.terminate() };
}

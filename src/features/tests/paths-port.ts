import type { GeneratedPaths, GenerateRequest } from '../../../machines/open-machine/tests.machine.ts';

/**
 * The browser's path generator: a Web Worker (paths.worker.ts) per request, ended when
 * it answers, so a long generation never blocks the page and an abandoned one is dropped.
 * A worker that crashes answers with a message, never leaves the panel waiting.
 */
export function generateInWorker(request: GenerateRequest, signal?: AbortSignal): Promise<GeneratedPaths> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./paths.worker.ts', import.meta.url), { type: 'module' });
    const end = (result: GeneratedPaths) => {
      worker.terminate();
      resolve(result);
    };
    signal?.addEventListener('abort', () => end({ paths: [], error: 'Generation was stopped.' }));
    worker.addEventListener('message', (e: MessageEvent<{ result: GeneratedPaths }>) => end(e.data.result));
    worker.addEventListener('error', (e) => end({ paths: [], error: e.message || 'The path worker failed.' }));
    worker.postMessage({ id: 1, request });
  });
}

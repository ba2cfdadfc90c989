/// <reference lib="webworker" />
import { generatePaths } from '../../lib/testing/generate.ts';
import type { GenerateRequest } from '../../../machines/open-machine/tests.machine.ts';

/** Path generation off the page's thread: one request in, its paths (or refusal) out. */
self.addEventListener('message', (e: MessageEvent<{ id: number; request: GenerateRequest }>) => {
  const { id, request } = e.data;
  self.postMessage({ id, result: generatePaths(request.definition, request.kind, request.target) });
});

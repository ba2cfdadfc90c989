/**
 * One edge function's worker thread: installs the resolve hooks and the Deno globals,
 * imports the function (which calls Deno.serve), then turns bridged request messages
 * into fetch Requests for its handler and streams each Response back.
 */
import { register } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { describe, installDenoGlobals, type ServeInfo, type Served } from './deno-shim.ts';
import type { HeaderList, HostMessage, WorkerMessage, WorkerSetup } from './protocol.ts';

if (!parentPort) throw new Error('server/functions/worker.ts runs only as a worker thread');
const port = parentPort;
const setup = workerData as WorkerSetup;

const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
// The function's console goes to the worker's stdout/stderr, which the host reads line by line.
const log = (line: string): void => console.error(line);

/** Per request: abort on client disconnect, and the wait for the host's chunk acknowledgement. */
interface Inflight {
  controller: AbortController;
  acked: (() => void) | null;
  finish: () => void;
}
const inflight = new Map<number, Inflight>();

function toHeaderList(headers: Headers): HeaderList {
  const list: HeaderList = [];
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') list.push([name, value]);
  });
  for (const cookie of headers.getSetCookie()) list.push(['set-cookie', cookie]);
  return list;
}

async function streamBody(id: number, body: ReadableStream<Uint8Array>, state: Inflight): Promise<void> {
  const reader = body.getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  state.controller.signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || state.controller.signal.aborted) break;
      if (value.byteLength === 0) continue;
      // Copy: the chunk may be a view on a larger shared buffer that must not be detached.
      const data = value.slice().buffer;
      const acked = new Promise<void>((resolve) => (state.acked = resolve));
      post({ type: 'chunk', id, data }, [data]);
      await acked;
    }
  } finally {
    state.controller.signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

async function run(served: Served, message: Extract<HostMessage, { type: 'request' }>): Promise<void> {
  const { id } = message;
  let finish = () => undefined as void;
  const completed = new Promise<void>((resolve) => (finish = resolve));
  const state: Inflight = { controller: new AbortController(), acked: null, finish };
  inflight.set(id, state);
  try {
    const request = new Request(message.url, {
      method: message.method,
      headers: message.headers,
      body: message.body,
      signal: state.controller.signal,
    });
    const info: ServeInfo = { remoteAddr: { transport: 'tcp', hostname: message.remoteAddr, port: 0 }, completed };
    let response: unknown;
    try {
      response = await served.handler(request, info);
    } catch (error) {
      if (!served.onError) throw error;
      response = await served.onError(error);
    }
    if (!(response instanceof Response)) throw new TypeError('the handler did not return a Response');
    post({ type: 'head', id, status: response.status, statusText: response.statusText, headers: toHeaderList(response.headers) });
    if (response.body && message.method !== 'HEAD') await streamBody(id, response.body, state);
    post({ type: 'end', id });
  } catch (error) {
    log(`request ${message.method} ${new URL(message.url).pathname} failed: ${describe(error)}`);
    post({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
  } finally {
    inflight.delete(id);
    state.finish();
  }
}

async function boot(): Promise<void> {
  register(new URL('./resolve-hooks.ts', import.meta.url).href, {
    parentURL: import.meta.url,
    data: { importMap: setup.importMap, fallbackParentUrl: setup.fallbackParentUrl },
  });
  // Deno has a global WebSocket; Node 20 does not (supabase-js realtime needs one).
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'undefined') {
    const ws = await import('ws');
    Object.defineProperty(globalThis, 'WebSocket', { value: ws.WebSocket, configurable: true, writable: true });
  }
  const servedHandler = installDenoGlobals(log);
  // A stray rejection or throw in a timer must not take down the function's other requests.
  process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${describe(reason)}`));
  process.on('uncaughtException', (error) => log(`uncaught exception: ${describe(error)}`));
  try {
    await import(setup.entryUrl);
  } catch (error) {
    log(`boot failed: ${describe(error)}`);
    post({ type: 'boot-error', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  const served = servedHandler();
  if (!served) {
    post({ type: 'boot-error', message: 'the function did not call Deno.serve' });
    return;
  }
  port.on('message', (message: HostMessage) => {
    if (message.type === 'request') void run(served, message);
    else if (message.type === 'ack') {
      const state = inflight.get(message.id);
      const resolve = state?.acked;
      if (state) state.acked = null;
      resolve?.();
    } else {
      const state = inflight.get(message.id);
      if (state) {
        state.controller.abort(new DOMException('The client closed the connection', 'AbortError'));
        state.acked?.();
      }
    }
  });
  post({ type: 'ready' });
}

void boot();

/**
 * One edge function's worker thread: installs the resolve hooks and the Deno globals,
 * imports the function (which calls Deno.serve), then turns bridged request messages
 * into fetch Requests for its handler and streams each Response back.
 */
import { register } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { describe, installDenoGlobals, type ServeInfo, type Served } from './deno-shim.ts';
import type { HeaderList, HostMessage, WorkerMessage, WorkerSetup } from './protocol.ts';
import { WorkerSockets } from './worker-sockets.ts';

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
const sockets = new WorkerSockets(post);

function toHeaderList(headers: Headers): HeaderList {
  const list: HeaderList = [];
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') list.push([name, value]);
  });
  for (const cookie of headers.getSetCookie()) list.push(['set-cookie', cookie]);
  return list;
}

/** Bodies up to this size that are complete at once go out with the head, in one message. */
const WHOLE_BODY_LIMIT = 256 * 1024;

type Read = ReadableStreamReadResult<Uint8Array>;

/** The read if it settles before any pending I/O runs, else null: "is the body already there?" */
function readNow(read: Promise<Read>): Promise<Read | null> {
  return Promise.race([read, new Promise<null>((resolve) => setImmediate(() => resolve(null)))]);
}

function concat(chunks: Uint8Array[], size: number): ArrayBuffer {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out.buffer;
}

async function sendChunk(id: number, chunk: Uint8Array, state: Inflight): Promise<void> {
  if (chunk.byteLength === 0) return;
  // Copy: the chunk may be a view on a larger shared buffer that must not be detached.
  const data = chunk.slice().buffer;
  const acked = new Promise<void>((resolve) => (state.acked = resolve));
  post({ type: 'chunk', id, data }, [data]);
  await acked;
}

/**
 * A body already complete (a string, JSON, bytes) goes out whole, with its length, in one
 * message; a body still being produced is streamed: head first, then acknowledged chunks.
 */
async function respond(id: number, response: Response, method: string, state: Inflight): Promise<void> {
  const head = {
    id,
    status: response.status,
    statusText: response.statusText,
    headers: toHeaderList(response.headers),
  };
  if (!response.body || method === 'HEAD') {
    post({ type: 'response', ...head, body: null });
    return;
  }
  const reader = response.body.getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  state.controller.signal.addEventListener('abort', onAbort);
  try {
    const ready: Uint8Array[] = [];
    let size = 0;
    let read = reader.read();
    for (;;) {
      const result = await readNow(read);
      if (result === null) break;
      if (result.done) {
        const body = concat(ready, size);
        post({ type: 'response', ...head, body }, [body]);
        return;
      }
      ready.push(result.value);
      size += result.value.byteLength;
      read = reader.read();
      if (size > WHOLE_BODY_LIMIT) break;
    }
    post({ type: 'head', ...head });
    for (const chunk of ready) await sendChunk(id, chunk, state);
    for (;;) {
      const { done, value } = await read;
      if (done || state.controller.signal.aborted) break;
      await sendChunk(id, value, state);
      read = reader.read();
    }
    post({ type: 'end', id });
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
    if (message.upgrade) sockets.allow(request, id, message.url.replace(/^http/, 'ws'));
    const info: ServeInfo = { remoteAddr: { transport: 'tcp', hostname: message.remoteAddr, port: 0 }, completed };
    let response: unknown;
    try {
      response = await served.handler(request, info);
    } catch (error) {
      if (!served.onError) throw error;
      response = await served.onError(error);
    }
    if (!(response instanceof Response)) throw new TypeError('the handler did not return a Response');
    if (message.upgrade && sockets.accepted(id, response)) return;
    if (message.upgrade) {
      // A refused upgrade is a plain answer on the raw socket: always whole.
      const body = response.body ? await response.arrayBuffer() : null;
      const head = {
        id,
        status: response.status,
        statusText: response.statusText,
        headers: toHeaderList(response.headers),
      };
      post({ type: 'response', ...head, body }, body ? [body] : []);
      return;
    }
    await respond(id, response, message.method, state);
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
  Object.assign((globalThis as unknown as { Deno: object }).Deno, { upgradeWebSocket: sockets.upgrade });
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
    if (sockets.handle(message)) return;
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

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Duplex, Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HostSockets } from './host-sockets.ts';
import type { HeaderList, HostMessage, WorkerMessage, WorkerSetup } from './protocol.ts';

/**
 * The main-thread side of one function: a worker thread that owns the function's module
 * graph, globals and environment, so functions cannot overwrite each other's handler or
 * env, and a crash ends only that worker. Requests are multiplexed over its port.
 */

const require = createRequire(import.meta.url);
const TSX_ESM_API = pathToFileURL(
  path.join(path.dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
).href;
const WORKER_ENTRY = new URL('./worker.ts', import.meta.url).href;
// Workers start from plain JavaScript: register tsx, then load the TypeScript worker.
const BOOTSTRAP = `import(${JSON.stringify(TSX_ESM_API)})
  .then((tsx) => { tsx.register({ tsconfig: false }); return import(${JSON.stringify(WORKER_ENTRY)}); })
  .catch((error) => { console.error(error); process.exit(70); });`;

/** Hop-by-hop headers a proxy never forwards. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

export class BootError extends Error {}
export class WorkerError extends Error {}
/** The worker ended before this request was sent to it (retired during a cold start): try a new one. */
export class WorkerGoneError extends WorkerError {}
/** The worker was stopped for holding its thread (an endless loop): hosted's WORKER_LIMIT. */
export class WorkerLimitError extends Error {}

/** How often, and for how long at most, a worker with requests in flight may block its event loop. */
const WATCH_INTERVAL_MS = 250;

export interface BridgedRequest {
  method: string;
  url: string;
  headers: HeaderList;
  body: Buffer | null;
  remoteAddr: string;
}

interface Pending {
  res: ServerResponse;
  resolve: () => void;
  reject: (error: Error) => void;
}

export interface FunctionWorkerOptions {
  setup: WorkerSetup;
  env: Record<string, string>;
  /** A line the function printed, or a line about it. */
  log: (line: string) => void;
  bootTimeoutMs: number;
  /**
   * Wall time a worker may keep its event loop busy without a break while serving before
   * it is terminated. Hosted stops a function at 2 s of CPU; this is wall time, so larger.
   */
  blockedLimitMs: number;
  /** Largest frame an upgraded connection accepts from its client (ws closes it with 1009). */
  maxFrameBytes?: number;
}

export class FunctionWorker {
  readonly ready: Promise<void>;
  /** Settles when the thread has exited, for whatever reason. */
  readonly stopped: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exited = false;
  private retiring = false;
  private readonly watchdog: NodeJS.Timeout;
  private readonly sockets: HostSockets;

  constructor(private readonly options: FunctionWorkerOptions) {
    this.sockets = new HostSockets(
      (message, transfer) => this.send(message, transfer),
      options.maxFrameBytes ?? 1 << 20,
    );
    this.worker = new Worker(BOOTSTRAP, {
      eval: true,
      execArgv: [],
      env: options.env,
      workerData: options.setup,
      stdout: true,
      stderr: true,
    });
    this.stopped = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.pipe(this.worker.stdout);
    this.pipe(this.worker.stderr);
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new BootError(`no Deno.serve handler after ${options.bootTimeoutMs} ms`)),
        options.bootTimeoutMs,
      );
      const settle = (error: Error | null) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      this.worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') settle(null);
        else if (message.type === 'boot-error') settle(new BootError(message.message));
        else this.onMessageSafely(message);
      });
      this.worker.on('error', (error) => {
        options.log(`worker crashed: ${error.stack ?? error.message}`);
        settle(new BootError(error.message));
      });
      this.worker.on('exit', (code) => {
        this.exited = true;
        clearInterval(this.watchdog);
        settle(new BootError(`worker exited with code ${code}`));
        this.fail(new WorkerError(`worker exited with code ${code}`));
      });
    });
    // Observed by whoever sends the first request; never an unhandled rejection here.
    this.ready.catch(() => undefined);
    this.watchdog = this.watchBlockedLoop();
  }

  /** Ends a worker whose loop stays busy with requests waiting: one endless loop costs one worker. */
  private watchBlockedLoop(): NodeJS.Timeout {
    const elu = this.worker.performance.eventLoopUtilization.bind(this.worker.performance);
    let last = elu();
    let blockedMs = 0;
    const timer = setInterval(() => {
      const now = elu();
      const utilization = elu(now, last).utilization;
      last = now;
      blockedMs = this.pending.size > 0 && utilization > 0.99 ? blockedMs + WATCH_INTERVAL_MS : 0;
      if (blockedMs < this.options.blockedLimitMs) return;
      this.options.log(`worker kept its event loop busy for ${blockedMs} ms with requests waiting: terminated`);
      this.fail(new WorkerLimitError(`event loop blocked for ${blockedMs} ms`));
      void this.close();
    }, WATCH_INTERVAL_MS);
    timer.unref();
    return timer;
  }

  /** Rejects every request in flight (their responses become relay errors or are cut off). */
  private fail(error: Error): void {
    this.sockets.failAll(error);
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(error);
    }
  }

  /** False once the worker exited or was retired: the next request starts a fresh one. */
  get alive(): boolean {
    return !this.exited && !this.retiring;
  }

  /**
   * Stops taking requests; terminates once those in flight are answered (code changed).
   * Its open WebSockets end then (1012: service restart); their clients reconnect to the new code.
   */
  retire(): void {
    this.retiring = true;
    if (this.pending.size === 0) void this.close();
  }

  /**
   * Sends a WebSocket upgrade request; the function either accepts it (Deno.upgradeWebSocket:
   * the handshake completes on `socket`) or answers it as plain HTTP on the raw socket.
   * Resolves once either happened; rejects (before anything was written) if the handler failed.
   */
  async dispatchUpgrade(request: BridgedRequest, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    await this.ready;
    if (this.exited) throw new WorkerGoneError('worker exited before the request was sent');
    const id = this.nextId++;
    const done = this.sockets.wait(id, req, socket, head);
    this.send({ type: 'request', id, ...request, body: null, upgrade: true });
    return done;
  }

  /** Sends the request and writes the function's response to `res`. Rejects before the head only. */
  async dispatch(request: BridgedRequest, res: ServerResponse): Promise<void> {
    await this.ready;
    if (this.exited) throw new WorkerGoneError('worker exited before the request was sent');
    const id = this.nextId++;
    const body = request.body && request.body.length > 0 ? toArrayBuffer(request.body) : null;
    const done = new Promise<void>((resolve, reject) => this.pending.set(id, { res, resolve, reject }));
    res.on('close', () => {
      const pending = this.pending.get(id);
      if (!pending) return;
      this.pending.delete(id);
      this.send({ type: 'abort', id });
      pending.resolve();
    });
    this.send({ type: 'request', id, ...request, body }, body ? [body] : []);
    const settled = () => {
      if (this.retiring && this.pending.size === 0) void this.close();
    };
    done.then(settled, settled);
    return done;
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    this.sockets.failAll(new WorkerGoneError('the worker stopped'), this.retiring ? 1012 : 1011);
    this.exited = true;
    await this.worker.terminate();
  }

  private send(message: HostMessage, transfer: ArrayBuffer[] = []): void {
    if (!this.exited) this.worker.postMessage(message, transfer);
  }

  /** A response the gateway cannot write (say, a header Node refuses) fails that request, never the process. */
  private onMessageSafely(message: WorkerMessage): void {
    try {
      this.onMessage(message);
    } catch (error) {
      if (message.type === 'ready' || message.type === 'boot-error') return;
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      this.send({ type: 'abort', id: message.id });
      const reason = error instanceof Error ? error.message : String(error);
      this.options.log(`response could not be written: ${reason}`);
      pending.reject(new WorkerError(reason));
    }
  }

  private onMessage(message: WorkerMessage): void {
    if (message.type === 'ready' || message.type === 'boot-error') return;
    if (this.sockets.handle(message)) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    const { res } = pending;
    switch (message.type) {
      case 'response': {
        const headers = responseHeaders(message.headers);
        if (message.body) headers['content-length'] = String(message.body.byteLength);
        res.writeHead(message.status, message.statusText || undefined, headers);
        this.pending.delete(message.id);
        res.end(message.body ? Buffer.from(message.body) : undefined);
        pending.resolve();
        break;
      }
      case 'head':
        res.writeHead(message.status, message.statusText || undefined, responseHeaders(message.headers));
        // Make the head reach the client now: a streamed body may take its time.
        res.flushHeaders();
        break;
      case 'chunk': {
        const flushed = res.write(Buffer.from(message.data));
        if (flushed) this.send({ type: 'ack', id: message.id });
        else res.once('drain', () => this.send({ type: 'ack', id: message.id }));
        break;
      }
      case 'end':
        this.pending.delete(message.id);
        res.end();
        pending.resolve();
        break;
      case 'error':
        this.pending.delete(message.id);
        if (res.headersSent) {
          // The body broke half way: the client must see a truncated response, not a clean end.
          res.destroy(new Error(message.message));
          pending.resolve();
        } else pending.reject(new WorkerError(message.message));
        break;
    }
  }

  private pipe(stream: Readable): void {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.options.log(line));
  }
}

/** Headers the function sets replace the gateway's (CORS included), never duplicate them. */
function responseHeaders(list: HeaderList): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of list) {
    if (HOP_BY_HOP.has(name)) continue;
    const prior = headers[name];
    if (prior === undefined) headers[name] = value;
    else headers[name] = Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return headers;
}

function toArrayBuffer(buffer: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(buffer.length);
  new Uint8Array(copy).set(buffer);
  return copy;
}

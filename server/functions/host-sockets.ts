import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { HeaderList, HostMessage, WorkerMessage } from './protocol.ts';

/**
 * The main-thread side of WebSockets a function accepted with `Deno.upgradeWebSocket`:
 * an upgrade request waits here while the worker's handler decides; an upgrade answer
 * completes the handshake on the raw socket, any other answer (a 401, say) is written to
 * it as plain HTTP. Frames then cross the worker port both ways (see worker-sockets.ts).
 */

type Send = (message: HostMessage, transfer?: ArrayBuffer[]) => void;

interface Waiting {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  done: () => void;
  fail: (error: Error) => void;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden' };

/** Writes a plain HTTP answer on a socket that asked to upgrade, then ends it. */
export function answerRaw(
  socket: Duplex,
  status: number,
  statusText: string,
  headers: HeaderList,
  body: Buffer | null,
): void {
  const lines = [`HTTP/1.1 ${status} ${statusText || STATUS_TEXT[status] || 'Error'}`];
  for (const [name, value] of headers) {
    if (name === 'content-length' || name === 'connection' || name === 'transfer-encoding') continue;
    lines.push(`${name}: ${value.replace(/[\r\n]/g, '')}`);
  }
  lines.push(`content-length: ${body?.length ?? 0}`, 'connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body ?? Buffer.alloc(0)]));
}

export class HostSockets {
  private readonly waiting = new Map<number, Waiting>();
  private readonly open = new Map<number, WebSocket>();
  private readonly server: WebSocketServer;

  constructor(
    private readonly send: Send,
    maxPayload: number,
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload, clientTracking: false });
  }

  get count(): number {
    return this.waiting.size + this.open.size;
  }

  /** Holds an upgrade request until the worker answers request `id`. */
  wait(id: number, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiting: Waiting = { req, socket, head, done: resolve, fail: reject };
      this.waiting.set(id, waiting);
      socket.once('close', () => {
        if (this.waiting.get(id) !== waiting) return;
        this.waiting.delete(id);
        this.send({ type: 'abort', id });
        resolve();
      });
    });
  }

  /** Handles the worker's message if it concerns an upgrade or an open socket. */
  handle(message: WorkerMessage): boolean {
    if (message.type === 'ready' || message.type === 'boot-error') return false;
    const waiting = this.waiting.get(message.id);
    if (waiting) {
      this.waiting.delete(message.id);
      if (message.type === 'upgrade') this.accept(message.id, waiting, message.protocol);
      else if (message.type === 'response') {
        const body = message.body ? Buffer.from(message.body) : null;
        answerRaw(waiting.socket, message.status, message.statusText, message.headers, body);
        waiting.done();
      } else if (message.type === 'error') waiting.fail(new Error(message.message));
      else waiting.fail(new Error(`unexpected ${message.type} for an upgrade request`));
      return true;
    }
    const ws = this.open.get(message.id);
    if (message.type === 'ws-send') {
      ws?.send(typeof message.data === 'string' ? message.data : Buffer.from(message.data));
      return true;
    }
    if (message.type === 'ws-close') {
      ws?.close(message.code, message.reason);
      return true;
    }
    return false;
  }

  private accept(id: number, waiting: Waiting, protocol: string): void {
    const { req, socket, head } = waiting;
    // ws picks the subprotocol through this hook; the function's choice is the answer.
    (this.server.options as { handleProtocols?: unknown }).handleProtocols = () => protocol || false;
    // A handshake ws refuses (a malformed key, say) ends the socket without a callback.
    socket.once('close', () => {
      if (this.open.has(id)) return;
      this.send({ type: 'ws-closed', id, code: 1006, reason: '', clean: false });
      waiting.done();
    });
    this.server.handleUpgrade(req, socket, head, (ws) => {
      this.open.set(id, ws);
      ws.on('message', (data: RawData, binary: boolean) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
        if (!binary) this.send({ type: 'ws-message', id, data: bytes.toString('utf8') });
        else {
          const copy = new Uint8Array(bytes).buffer;
          this.send({ type: 'ws-message', id, data: copy }, [copy]);
        }
      });
      ws.on('error', () => undefined);
      ws.on('close', (code: number, reason: Buffer) => {
        this.open.delete(id);
        // 1006: the connection broke without a close frame.
        this.send({ type: 'ws-closed', id, code, reason: reason.toString(), clean: code !== 1006 });
      });
      this.send({ type: 'ws-open', id });
      waiting.done();
    });
  }

  /** The worker is gone: refuse waiting upgrades, end open sockets (1011: server error; 1012: restart). */
  failAll(error: Error, code = 1011): void {
    for (const [id, waiting] of this.waiting) {
      this.waiting.delete(id);
      waiting.fail(error);
    }
    for (const [id, ws] of this.open) {
      this.open.delete(id);
      ws.close(code, code === 1012 ? 'The function was redeployed' : 'The function stopped');
    }
  }
}

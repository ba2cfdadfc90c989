import type { HeaderList, HostMessage, WorkerMessage } from './protocol.ts';

/**
 * `Deno.upgradeWebSocket` inside a function's worker, with hosted Supabase's semantics:
 * `const { socket, response } = Deno.upgradeWebSocket(req)`; the handler returns
 * `response` (status 101) and talks over `socket`, a WHATWG-style WebSocket whose `open`
 * fires once the gateway completed the handshake. The real socket lives on the main
 * thread (host-sockets.ts); frames cross the worker port as `ws-*` messages.
 */

type Post = (message: WorkerMessage, transfer?: ArrayBuffer[]) => void;

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** Node 20 has no global CloseEvent. */
class SocketCloseEvent extends Event {
  readonly code: number;
  readonly reason: string;
  readonly wasClean: boolean;
  constructor(init: { code: number; reason: string; wasClean: boolean }) {
    super('close');
    this.code = init.code;
    this.reason = init.reason;
    this.wasClean = init.wasClean;
  }
}

type Handler<E extends Event> = ((event: E) => void) | null;

export class BridgedWebSocket extends EventTarget {
  static readonly CONNECTING = CONNECTING;
  static readonly OPEN = OPEN;
  static readonly CLOSING = CLOSING;
  static readonly CLOSED = CLOSED;
  readonly CONNECTING = CONNECTING;
  readonly OPEN = OPEN;
  readonly CLOSING = CLOSING;
  readonly CLOSED = CLOSED;
  readyState: number = CONNECTING;
  binaryType: 'arraybuffer' | 'blob' = 'arraybuffer';
  readonly bufferedAmount = 0;
  readonly extensions = '';
  onopen: Handler<Event> = null;
  onmessage: Handler<MessageEvent> = null;
  onclose: Handler<SocketCloseEvent> = null;
  onerror: Handler<Event> = null;

  constructor(
    private readonly id: number,
    private readonly post: Post,
    readonly url: string,
    readonly protocol: string,
  ) {
    super();
  }

  send(data: string | ArrayBuffer | ArrayBufferView | Blob): void {
    if (this.readyState === CONNECTING) throw new DOMException('WebSocket is not open', 'InvalidStateError');
    if (this.readyState !== OPEN) return;
    if (typeof data === 'string') this.post({ type: 'ws-send', id: this.id, data });
    else if (data instanceof Blob) {
      void data.arrayBuffer().then((buffer) => this.post({ type: 'ws-send', id: this.id, data: buffer }, [buffer]));
    } else {
      const view = ArrayBuffer.isView(data) ? data : new Uint8Array(data);
      const copy = new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice().buffer;
      this.post({ type: 'ws-send', id: this.id, data: copy }, [copy]);
    }
  }

  close(code?: number, reason?: string): void {
    if (code !== undefined && code !== 1000 && (code < 3000 || code > 4999))
      throw new DOMException(`The close code must be 1000 or in 3000-4999, got ${code}`, 'InvalidAccessError');
    if (reason !== undefined && Buffer.byteLength(reason) > 123)
      throw new DOMException('The close reason must be at most 123 bytes', 'SyntaxError');
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.post({ type: 'ws-close', id: this.id, code: code ?? 1000, reason: reason ?? '' });
  }

  /** @internal the gateway completed the handshake. */
  opened(): void {
    if (this.readyState !== CONNECTING) return;
    this.readyState = OPEN;
    this.fire(new Event('open'), this.onopen);
  }

  /** @internal a frame from the client. */
  received(data: string | ArrayBuffer): void {
    if (this.readyState !== OPEN) return;
    const payload = typeof data === 'string' || this.binaryType === 'arraybuffer' ? data : new Blob([data]);
    this.fire(new MessageEvent('message', { data: payload }), this.onmessage);
  }

  /** @internal the connection ended (either side closed, or it broke). */
  closed(code: number, reason: string, clean: boolean): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    if (!clean) this.fire(new Event('error'), this.onerror);
    this.fire(new SocketCloseEvent({ code, reason, wasClean: clean }), this.onclose);
  }

  private fire<E extends Event>(event: E, handler: Handler<E>): void {
    try {
      handler?.call(this, event);
    } finally {
      this.dispatchEvent(event);
    }
  }
}

export interface UpgradeOptions {
  protocol?: string;
  idleTimeout?: number;
}

interface Pending {
  id: number;
  url: string;
}

/**
 * The worker's side of every upgraded connection: which requests may upgrade, the sockets
 * they made, and the ws-* messages from the host.
 */
export class WorkerSockets {
  /** Requests that arrived as WebSocket upgrades, until their handler answers. */
  private readonly upgradable = new WeakMap<Request, Pending>();
  /** Upgrade responses handed out by upgradeWebSocket, with their socket. */
  private readonly responses = new WeakMap<Response, BridgedWebSocket>();
  private readonly sockets = new Map<number, BridgedWebSocket>();

  constructor(private readonly post: Post) {}

  /** Marks a bridged request as an upgrade request the handler may accept. */
  allow(request: Request, id: number, url: string): void {
    this.upgradable.set(request, { id, url });
  }

  /** Deno.upgradeWebSocket */
  upgrade = (request: Request, options: UpgradeOptions = {}): { socket: BridgedWebSocket; response: Response } => {
    const pending = this.upgradable.get(request);
    const upgradeHeader = request.headers.get('upgrade') ?? '';
    if (!pending || !/\bwebsocket\b/i.test(upgradeHeader))
      throw new TypeError("Invalid Header: 'upgrade' header must contain 'websocket'");
    this.upgradable.delete(request);
    const socket = new BridgedWebSocket(pending.id, this.post, pending.url, options.protocol ?? '');
    const headers = new Headers({ upgrade: 'websocket', connection: 'Upgrade' });
    if (options.protocol) headers.set('sec-websocket-protocol', options.protocol);
    // Fetch's Response refuses 101; the handler still sees hosted's status.
    const response = new Response(null, { status: 200, headers });
    Object.defineProperty(response, 'status', { value: 101 });
    Object.defineProperty(response, 'statusText', { value: 'Switching Protocols' });
    this.responses.set(response, socket);
    return { socket, response };
  };

  /** The socket behind an upgrade response the handler returned, if it is one. */
  accepted(id: number, response: Response): boolean {
    const socket = this.responses.get(response);
    if (!socket) return false;
    this.responses.delete(response);
    this.sockets.set(id, socket);
    const headers: HeaderList = [];
    response.headers.forEach((value, name) => headers.push([name, value]));
    this.post({ type: 'upgrade', id, protocol: socket.protocol, headers });
    return true;
  }

  /** Handles a ws-* message from the host; false for any other message. */
  handle(message: HostMessage): boolean {
    switch (message.type) {
      case 'ws-open':
        this.sockets.get(message.id)?.opened();
        return true;
      case 'ws-message':
        this.sockets.get(message.id)?.received(message.data);
        return true;
      case 'ws-closed': {
        const socket = this.sockets.get(message.id);
        this.sockets.delete(message.id);
        socket?.closed(message.code, message.reason, message.clean);
        return true;
      }
      default:
        return false;
    }
  }
}

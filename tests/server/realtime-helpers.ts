import { randomUUID } from 'node:crypto';
import type { RealtimeChannel } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { signJwt } from '../../server/jwt.ts';
import { anonClient, backendInfo, type AnyClient } from '../setup/clients.ts';

/** Shared helpers of the realtime tests: clients, tokens, raw sockets, waiting. */

export const VSNS = ['1.0.0', '2.0.0'] as const;
export type TestVsn = (typeof VSNS)[number];

/** A topic no other test (or test file) uses. */
export function uniqueTopic(prefix: string): string {
  return `${prefix}:${randomUUID().slice(0, 8)}`;
}

/** A user access token as GoTrue would mint it; `expiresIn` may be negative (expired). */
export function userToken(sub: string = randomUUID(), expiresIn = 3600): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    {
      sub,
      role: 'authenticated',
      aud: 'authenticated',
      iat: now,
      exp: now + expiresIn,
      email: `${sub.slice(0, 8)}@example.test`,
    },
    backendInfo().jwtSecret,
  );
}

const clients: AnyClient[] = [];

/** A supabase-js client, removed in `closeClients()`; signed in as `token` when given. */
export async function realtimeClient(vsn: TestVsn, token?: string): Promise<AnyClient> {
  const client = anonClient({ vsn });
  clients.push(client);
  if (token) await client.realtime.setAuth(token);
  return client;
}

export async function closeClients(): Promise<void> {
  const all = clients.splice(0);
  await Promise.all(all.map((c) => c.removeAllChannels().catch(() => undefined)));
  await Promise.all(all.map((c) => c.realtime.disconnect()));
}

/** Subscribes and resolves with the first terminal status (SUBSCRIBED, CHANNEL_ERROR...). */
export function subscribe(channel: RealtimeChannel, timeoutMs = 10_000): Promise<{ status: string; error?: Error }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ status: 'TEST_TIMEOUT' }), timeoutMs);
    channel.subscribe((status, error) => {
      clearTimeout(timer);
      resolve({ status, ...(error ? { error } : {}) });
    });
  });
}

export async function subscribed(channel: RealtimeChannel): Promise<RealtimeChannel> {
  const { status, error } = await subscribe(channel);
  if (status !== 'SUBSCRIBED')
    throw new Error(`expected SUBSCRIBED, got ${status}${error ? `: ${error.message}` : ''}`);
  return channel;
}

/** Polls until `check` returns a value other than undefined, null or false. */
export async function until<T>(
  check: () => T | undefined | null | false,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw Phoenix socket for tests that need to see or send exact frames. */
export class RawSocket {
  readonly frames: (unknown[] | Record<string, unknown> | Buffer)[] = [];
  closed: { code: number; reason: string } | null = null;
  private constructor(
    readonly ws: WebSocket,
    readonly vsn: TestVsn,
  ) {
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (binary) {
        this.frames.push(data);
        return;
      }
      const frame = JSON.parse(data.toString('utf8')) as unknown[] | Record<string, unknown>;
      // Replies to keep-alive heartbeats are not what any test looks at.
      if ((Array.isArray(frame) ? frame[1] : frame.ref) === 'keepalive') return;
      this.frames.push(frame);
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      if (this.timer) clearInterval(this.timer);
    });
  }

  private timer: NodeJS.Timeout | null = null;

  /** Opens a socket; `keepAlive` sends a heartbeat every that many ms (for short idle timeouts). */
  static open(vsn: TestVsn, options: { url?: string; apikey?: string; keepAlive?: number } = {}): Promise<RawSocket> {
    const base = (options.url ?? backendInfo().url).replace(/^http/, 'ws');
    const ws = new WebSocket(
      `${base}/realtime/v1/websocket?apikey=${options.apikey ?? backendInfo().anonKey}&vsn=${vsn}`,
    );
    return new Promise((resolve, reject) => {
      ws.once('open', () => {
        const socket = new RawSocket(ws, vsn);
        if (options.keepAlive)
          socket.timer = setInterval(
            () => socket.push(null, 'keepalive', 'phoenix', 'heartbeat', {}),
            options.keepAlive,
          );
        resolve(socket);
      });
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  /** Sends a message in this socket's text framing. */
  push(joinRef: string | null, ref: string | null, topic: string, event: string, payload: unknown): void {
    this.ws.send(
      this.vsn === '2.0.0'
        ? JSON.stringify([joinRef, ref, topic, event, payload])
        : JSON.stringify({ join_ref: joinRef, ref, topic, event, payload }),
    );
  }

  /** Frames as {joinRef, ref, topic, event, payload} whatever the version; binary frames are skipped. */
  messages(): { joinRef: unknown; ref: unknown; topic: unknown; event: unknown; payload: Record<string, unknown> }[] {
    return this.frames
      .filter((f) => !Buffer.isBuffer(f))
      .map((f) =>
        Array.isArray(f)
          ? { joinRef: f[0], ref: f[1], topic: f[2], event: f[3], payload: f[4] as Record<string, unknown> }
          : {
              joinRef: (f as Record<string, unknown>).join_ref,
              ref: (f as Record<string, unknown>).ref,
              topic: (f as Record<string, unknown>).topic,
              event: (f as Record<string, unknown>).event,
              payload: (f as Record<string, unknown>).payload as Record<string, unknown>,
            },
      );
  }

  replyTo(ref: string): { status: unknown; response: unknown } | undefined {
    const m = this.messages().find((x) => x.event === 'phx_reply' && x.ref === ref);
    return m ? { status: m.payload.status, response: m.payload.response } : undefined;
  }

  waitReply(ref: string, timeoutMs = 5000) {
    return until(() => this.replyTo(ref), timeoutMs, `reply to ${ref}`);
  }

  async join(topic: string, ref: string, payload: Record<string, unknown> = { config: {} }) {
    this.push(ref, ref, topic, 'phx_join', payload);
    return this.waitReply(ref);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.ws.close();
  }
}

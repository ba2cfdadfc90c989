import type WebSocket from 'ws';
import { Channel, type ChannelContext, type ChannelHost } from './channel.ts';
import type { Outlet } from './hub.ts';
import { decodeBinary, decodeText, encodeJson, encodeReply, type Decoded, type Inbound, type Vsn } from './protocol.ts';

/** Close codes: 1008 policy violation (rate limit), 1013 try again later (too slow), 1001 going away. */
const CLOSE_RATE_LIMIT = 1008;
const CLOSE_TOO_SLOW = 1013;
const CLOSE_IDLE = 1000;

/**
 * One WebSocket: decodes frames, answers heartbeats, limits the message rate, keeps
 * one ordered lane of work per topic, and owns the channels joined over it.
 */
export class Connection implements ChannelHost, Outlet {
  private readonly channels = new Map<string, Channel>();
  private readonly lanes = new Map<string, Promise<void>>();
  /** Topics whose join was requested and is not finished: they count against the limit. */
  private readonly joining = new Set<string>();
  private windowStart = Date.now();
  private windowCount = 0;
  private closed = false;
  private corked = false;
  lastFrameAt = Date.now();

  constructor(
    private readonly ws: WebSocket,
    readonly vsn: Vsn,
    readonly socketToken: string | null,
    private readonly ctx: ChannelContext,
    private readonly onClosed: (connection: Connection) => void,
    /** The upgraded TCP socket under `ws`: frames sent in one turn of the event loop leave in one write. */
    private readonly raw: { cork(): void; uncork(): void } | null = null,
  ) {
    ws.on('message', (data: Buffer, isBinary: boolean) => this.receive(data, isBinary));
    ws.on('close', () => this.dispose());
    ws.on('error', (error) => {
      this.ctx.log(`[realtime] socket error: ${error.message}`);
      this.dispose();
    });
  }

  get outlet(): Outlet {
    return this;
  }

  get channelCount(): number {
    return this.channels.size;
  }

  /** Sends a frame unless the client is too slow to keep up, in which case it is cut off. */
  send(frame: string | Buffer, binary: boolean): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.ctx.options.maxBufferedBytes) {
      this.ctx.log(`[realtime] closing a slow client: ${this.ws.bufferedAmount} bytes unsent`);
      this.terminate(CLOSE_TOO_SLOW, 'Client too slow');
      return;
    }
    try {
      // A burst (several database broadcasts read in one chunk, a presence diff and a
      // broadcast) costs one system call per client instead of one per frame; the frames
      // leave as soon as the current turn's synchronous work and microtasks are done.
      if (this.raw && !this.corked) {
        this.corked = true;
        this.raw.cork();
        process.nextTick(this.uncork);
      }
      this.ws.send(frame, { binary, compress: false });
    } catch (error) {
      this.ctx.log(`[realtime] send failed: ${error instanceof Error ? error.message : String(error)}`);
      this.terminate(1011, 'Internal error');
    }
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.raw?.uncork();
  };

  push(joinRef: string | null, ref: string | null, topic: string, event: string, payload: unknown): void {
    this.send(encodeJson(this.vsn, joinRef, ref, topic, event, payload), false);
  }

  reply(joinRef: string | null, ref: string | null, topic: string, status: 'ok' | 'error', response: unknown): void {
    this.send(encodeReply(this.vsn, joinRef, ref, topic, status, response), false);
  }

  released(channel: Channel): void {
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
  }

  /** Closes the socket from the server side (shutdown, idle, abuse). */
  terminate(code: number, reason: string): void {
    if (this.closed) return;
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
    // Give a polite close a moment, then cut the TCP connection regardless.
    setTimeout(() => this.ws.terminate(), 1000).unref();
    this.dispose();
  }

  /** The user's access changed (removed, role changed): re-check their private channels now. */
  recheckAccess(userId: string): void {
    for (const channel of this.channels.values()) {
      if (channel.isPrivate && channel.userId === userId) {
        this.enqueue(channel.topic, () => channel.recheckAccess());
      }
    }
  }

  closeIfIdle(now: number): void {
    if (now - this.lastFrameAt > this.ctx.options.idleTimeoutMs) this.terminate(CLOSE_IDLE, 'Idle timeout');
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const channel of [...this.channels.values()]) {
      try {
        channel.release();
      } catch (error) {
        this.ctx.log(
          `[realtime] releasing ${channel.topic} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    this.channels.clear();
    this.onClosed(this);
  }

  /** Counts a frame against the per-second budget: 'ok', 'refuse' (error reply) or 'close'. */
  private rate(now: number): 'ok' | 'refuse' | 'close' {
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount += 1;
    if (this.windowCount > this.ctx.options.closeAfterMessagesPerSecond) return 'close';
    if (this.windowCount > this.ctx.options.messagesPerSecond) return 'refuse';
    return 'ok';
  }

  private receive(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    const now = Date.now();
    this.lastFrameAt = now;
    try {
      const decoded: Decoded = isBinary
        ? this.vsn === '2.0.0'
          ? decodeBinary(data)
          : { ok: false, error: 'malformed message: binary frames need vsn 2.0.0' }
        : decodeText(this.vsn, data.toString('utf8'));
      const verdict = this.rate(now);
      if (verdict === 'close') {
        this.ctx.log('[realtime] closing a client over its message rate limit');
        this.terminate(CLOSE_RATE_LIMIT, 'Too many messages per second');
        return;
      }
      if (!decoded.ok) {
        this.ctx.log(`[realtime] ${decoded.error}`);
        if (decoded.topic !== undefined && decoded.ref) {
          this.reply(decoded.joinRef ?? null, decoded.ref, decoded.topic, 'error', { reason: decoded.error });
        }
        return;
      }
      const message = decoded.message;
      if (verdict === 'refuse') {
        if (message.ref)
          this.reply(message.joinRef, message.ref, message.topic, 'error', { reason: 'Too many messages per second' });
        return;
      }
      const bytes = message.user ? message.user.body.length : data.length;
      this.route(message, bytes);
    } catch (error) {
      this.ctx.log(
        `[realtime] frame handling failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }

  private route(message: Inbound, bytes: number): void {
    const { topic, event } = message;
    if (topic === 'phoenix') {
      if (event === 'heartbeat') this.reply(null, message.ref, topic, 'ok', {});
      return;
    }
    if (event === 'phx_join') {
      // Counted when requested: a burst of joins cannot all pass the check before any finishes.
      const counted = this.channels.has(topic) || this.joining.has(topic);
      if (!counted && this.channels.size + this.joining.size >= this.ctx.options.maxChannelsPerConnection) {
        this.reply(message.joinRef, message.ref, topic, 'error', {
          reason: 'ChannelRateLimitReached: Too many channels',
        });
        return;
      }
      this.joining.add(topic);
      this.enqueue(topic, async () => {
        try {
          await this.join(message);
        } finally {
          this.joining.delete(topic);
        }
      });
      return;
    }
    this.enqueue(topic, async () => {
      const channel = this.channels.get(topic);
      if (!channel) {
        // Phoenix answers frames for a topic the socket has not joined this way.
        if (message.ref) this.reply(message.joinRef, message.ref, topic, 'error', { reason: 'unmatched topic' });
        return;
      }
      await channel.handle(message, bytes);
    });
  }

  private async join(message: Inbound): Promise<void> {
    // A second join of a joined topic replaces the first, as Phoenix does.
    this.channels.get(message.topic)?.close();
    let channel: Channel | null;
    try {
      channel = await Channel.join(this.ctx, this, message);
    } catch (error) {
      // Hosted's catch-all join error; the cause stays in the log, not on the wire.
      this.ctx.log(
        `[realtime] UnknownErrorOnChannel ${message.topic}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      this.reply(message.joinRef, message.ref, message.topic, 'error', { reason: 'Unknown Error on Channel' });
      return;
    }
    if (!channel) return;
    if (this.closed) {
      channel.release();
      return;
    }
    this.channels.set(message.topic, channel);
  }

  /** Runs tasks for one topic in arrival order; other topics are not held up. */
  private enqueue(topic: string, task: () => Promise<void>): void {
    const run = async (): Promise<void> => {
      try {
        await task();
      } catch (error) {
        this.ctx.log(`[realtime] ${topic}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    };
    const previous = this.lanes.get(topic);
    const next = previous ? previous.then(run) : run();
    this.lanes.set(topic, next);
    void next.then(() => {
      if (this.lanes.get(topic) === next) this.lanes.delete(topic);
    });
  }
}

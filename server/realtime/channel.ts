import type pg from 'pg';
import type { Extension } from './authorization.ts';
import { ChannelAccess } from './channel-access.ts';
import type { ChangeBinding, ChangeData, ChangeFeed, ChangeSubscription } from './changes/types.ts';
import type { Hub, Member, Outlet } from './hub.ts';
import { JoinError, parseJoin, type JoinConfig } from './join.ts';
import type { RealtimeOptions } from './options.ts';
import type { Inbound } from './protocol.ts';
import { storedMessages, type StoredMessage } from './replay.ts';
import { TokenError, verifyAccessToken, type Identity } from './tokens.ts';
import { TokenWatch } from './token-watch.ts';
import { senderOf, stamped } from './stamp.ts';

/** What every channel shares: the database, the hub, the change feed, the limits. */
export interface ChannelContext {
  pool: pg.Pool;
  jwtSecret: string;
  hub: Hub;
  feed: ChangeFeed;
  options: RealtimeOptions;
  log: (line: string) => void;
  nextBindingId(): number;
}

/** The connection a channel lives on. */
export interface ChannelHost {
  readonly outlet: Outlet;
  /** The socket's own token (the apikey), used when a join carries none. */
  readonly socketToken: string | null;
  push(joinRef: string | null, ref: string | null, topic: string, event: string, payload: unknown): void;
  reply(joinRef: string | null, ref: string | null, topic: string, status: 'ok' | 'error', response: unknown): void;
  /** Called once when the channel ends for any reason. */
  released(channel: Channel): void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const PAYLOAD_TOO_LARGE = 'Payload size exceeds tenant limit';

function identityFor(token: string | null, secret: string): Identity {
  if (token === null) return { role: 'anon', claims: { role: 'anon' }, exp: null, token: null };
  return verifyAccessToken(token, secret);
}

/** One joined channel of one socket: config, identity, policies, presence and changes. */
export class Channel implements Member {
  private readonly access: ChannelAccess;
  private subscription: ChangeSubscription | null = null;
  private readonly tokenWatch: TokenWatch;
  private ended = false;
  /** Ids of replayed messages, so a live copy of one is not delivered twice. */
  private replayed = new Set<string>();
  readonly subTopic: string;

  private constructor(
    private readonly ctx: ChannelContext,
    private readonly host: ChannelHost,
    readonly topic: string,
    readonly joinRef: string | null,
    private readonly config: JoinConfig,
    private identity: Identity,
  ) {
    this.subTopic = topic.slice('realtime:'.length);
    this.access = new ChannelAccess(ctx.pool, ctx.log, this.subTopic, config.isPrivate);
    this.tokenWatch = new TokenWatch(
      ctx.jwtSecret,
      ctx.options.confirmTokenIntervalMs,
      (reason) => this.shutdown(reason),
      ctx.log,
    );
  }

  /** The extensions whose read policy this channel needs. */
  private get readExtensions(): Extension[] {
    return this.config.presenceEnabled ? ['broadcast', 'presence'] : ['broadcast'];
  }

  get outlet(): Outlet {
    return this.host.outlet;
  }

  get isPrivate(): boolean {
    return this.config.isPrivate;
  }

  /** The authenticated user (`sub`) of this channel's token, or null (anon, service keys). */
  get userId(): string | null {
    return senderOf(this.identity.claims);
  }

  canRead(extension: Extension): boolean {
    return this.access.canRead(extension);
  }

  alreadyReplayed(id: string): boolean {
    return this.replayed.has(id);
  }

  /** Handles a phx_join; replies to it and returns the channel, or null when refused. */
  static async join(ctx: ChannelContext, host: ChannelHost, message: Inbound): Promise<Channel | null> {
    const { topic, joinRef, ref } = message;
    const refuse = (reason: string): null => {
      host.reply(joinRef, ref, topic, 'error', { reason });
      return null;
    };
    if (!topic.startsWith('realtime:')) return refuse('unmatched topic');
    if (topic === 'realtime:') return refuse('TopicNameRequired: You must provide a topic name');
    let config: JoinConfig;
    let identity: Identity;
    try {
      config = parseJoin(message.payload);
      identity = identityFor(config.accessToken ?? host.socketToken, ctx.jwtSecret);
    } catch (error) {
      if (error instanceof TokenError) return refuse(error.reason);
      if (error instanceof JoinError) return refuse(error.message);
      throw error;
    }
    const channel = new Channel(ctx, host, topic, joinRef, config, identity);
    if (config.isPrivate) {
      const allowed = await channel.access.authorizeRead(identity, channel.readExtensions);
      if (!allowed)
        return refuse(`Unauthorized: You do not have permissions to read from this Channel topic: ${channel.subTopic}`);
    }
    let replay: StoredMessage[] = [];
    if (config.replay !== null) {
      if (!config.isPrivate) return refuse('UnableToReplayMessages: Replay is not allowed for public channels');
      if (config.replay === 'invalid') return refuse('UnableToReplayMessages: Replay params are not valid');
      if (!channel.access.canRead('broadcast')) {
        return refuse(`Unauthorized: You do not have permissions to read from this Channel topic: ${channel.subTopic}`);
      }
      try {
        replay = await storedMessages(ctx.pool, channel.subTopic, config.replay.since, config.replay.limit);
      } catch (error) {
        ctx.log(`[realtime] replay failed on ${topic}: ${error instanceof Error ? error.message : String(error)}`);
        return refuse('UnableToReplayMessages: Realtime was unable to replay messages');
      }
    }
    const bindings: ChangeBinding[] = config.changes.map((c) => ({
      id: ctx.nextBindingId(),
      event: c.event,
      schema: c.schema,
      ...(c.table ? { table: c.table } : {}),
      ...(c.filter ? { filter: c.filter } : {}),
    }));
    if (bindings.length > 0) {
      let invalid: string | null;
      try {
        invalid = await ctx.feed.validate(bindings, { role: identity.role, claims: identity.claims });
      } catch (error) {
        ctx.log(
          `[realtime] postgres_changes validation failed on ${topic}: ${error instanceof Error ? error.message : String(error)}`,
        );
        invalid = 'Unable to subscribe to changes with given parameters';
      }
      if (invalid) return refuse(invalid);
    }
    try {
      channel.start(bindings, ref, replay);
    } catch (error) {
      channel.release();
      throw error;
    }
    return channel;
  }

  private start(bindings: ChangeBinding[], ref: string | null, replay: StoredMessage[]): void {
    const { ctx, host, config } = this;
    ctx.hub.join(this.subTopic, config.isPrivate, this);
    const echoed = config.changes.map((c, i) => ({ ...c.original, id: bindings[i]!.id }));
    host.reply(this.joinRef, ref, this.topic, 'ok', { postgres_changes: echoed });
    for (const m of replay) {
      this.replayed.add(m.id);
      const payload = { type: 'broadcast', event: m.event, payload: m.payload, meta: { replayed: true, id: m.id } };
      host.push(this.joinRef, null, this.topic, 'broadcast', payload);
    }
    if (config.presenceEnabled && this.canRead('presence')) {
      host.push(
        this.joinRef,
        null,
        this.topic,
        'presence_state',
        ctx.hub.presenceState(this.subTopic, config.isPrivate),
      );
    }
    if (bindings.length > 0) {
      const deliver = (ids: number[], data: ChangeData): void => {
        if (this.ended) return;
        try {
          host.push(this.joinRef, null, this.topic, 'postgres_changes', { ids, data });
        } catch (error) {
          ctx.log(
            `[realtime] postgres_changes delivery failed on ${this.topic}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      };
      this.subscription = ctx.feed.subscribe(
        { role: this.identity.role, claims: this.identity.claims },
        bindings,
        deliver,
      );
      ctx.feed
        .ready()
        .then(
          () => this.system('postgres_changes', 'ok', 'Subscribed to PostgreSQL'),
          (error: unknown) =>
            this.system('postgres_changes', 'error', `Unable to subscribe to PostgreSQL: ${String(error)}`),
        )
        .catch((error: unknown) => ctx.log(`[realtime] ${String(error)}`));
    }
    this.tokenWatch.watch(this.identity);
  }

  /** Routes one frame for this channel; resolves once it is fully handled. */
  async handle(message: Inbound, bytes: number): Promise<void> {
    if (this.ended) return;
    switch (message.event) {
      case 'broadcast':
        return this.broadcast(message, bytes);
      case 'presence':
        return this.presence(message, bytes);
      case 'access_token':
        return this.refreshToken(message.payload);
      case 'phx_leave':
        this.host.reply(this.joinRef, message.ref, this.topic, 'ok', {});
        this.close();
        return;
      default:
        // Hosted ignores events it does not know; so do we.
        return;
    }
  }

  private replyTo(message: Inbound, status: 'ok' | 'error', response: unknown): void {
    if (message.ref !== null) this.host.reply(this.joinRef, message.ref, this.topic, status, response);
  }

  private async broadcast(message: Inbound, bytes: number): Promise<void> {
    const payload = message.payload as Record<string, unknown> | null;
    if (!message.user && (payload === null || typeof payload.event !== 'string')) {
      this.replyTo(message, 'error', { reason: 'Broadcast payload must have a string event' });
      return;
    }
    if (bytes > this.ctx.options.maxPayloadBytes) {
      this.replyTo(message, 'error', { reason: PAYLOAD_TOO_LARGE });
      return;
    }
    if (this.config.isPrivate && !(await this.access.authorizeWrite(this.identity, 'broadcast'))) {
      this.replyTo(message, 'error', {
        reason: `Unauthorized: You do not have permissions to write to this Channel topic: ${this.subTopic}`,
      });
      return;
    }
    if (this.ended) return;
    const except = this.config.self ? null : this;
    // Receivers can trust `meta.sender`: the server sets it from the token, whatever was sent.
    const sender = this.userId;
    if (message.user) {
      const metadata = stamped(message.user.metadata, sender);
      this.ctx.hub.broadcast(
        this.subTopic,
        this.config.isPrivate,
        { kind: 'user', user: { ...message.user, metadata } },
        except,
      );
    } else {
      const meta = stamped(isRecord(payload!.meta) ? payload!.meta : null, sender);
      this.ctx.hub.broadcast(
        this.subTopic,
        this.config.isPrivate,
        { kind: 'json', payload: { ...payload!, meta } },
        except,
      );
    }
    if (this.config.ack) this.replyTo(message, 'ok', {});
  }

  private async presence(message: Inbound, bytes: number): Promise<void> {
    const body = message.payload as Record<string, unknown>;
    const event = typeof body.event === 'string' ? body.event.toLowerCase() : '';
    const { hub } = this.ctx;
    if (event === 'untrack') {
      hub.untrack(this.subTopic, this.config.isPrivate, this);
      this.replyTo(message, 'ok', {});
      return;
    }
    if (event !== 'track') {
      this.replyTo(message, 'error', { reason: `Unknown presence event: ${event || String(body.event)}` });
      return;
    }
    const meta = body.payload === undefined ? {} : body.payload;
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
      this.replyTo(message, 'error', { reason: 'Presence track payload must be a map' });
      return;
    }
    if (bytes > this.ctx.options.maxPayloadBytes) {
      this.replyTo(message, 'error', { reason: 'Track message size exceeded' });
      return;
    }
    if (this.config.isPrivate) {
      if (!this.access.readChecked('presence')) await this.access.authorizeRead(this.identity, ['presence']);
      if (!(await this.access.authorizeWrite(this.identity, 'presence'))) {
        this.replyTo(message, 'error', {
          reason: `Unauthorized: You do not have permissions to track presence on this Channel topic: ${this.subTopic}`,
        });
        return;
      }
    }
    if (this.ended) return;
    this.config.presenceEnabled = true;
    // As with broadcasts, `sender` in a presence is the token's user, set here.
    hub.track(this.subTopic, this.config.isPrivate, this, this.config.presenceKey, {
      ...(meta as Record<string, unknown>),
      sender: this.userId,
    });
    this.replyTo(message, 'ok', {});
  }

  private async refreshToken(payload: unknown): Promise<void> {
    const token = (payload as { access_token?: unknown }).access_token;
    if (typeof token !== 'string' || token.startsWith('sb_') || token === this.identity.token) return;
    let identity: Identity;
    try {
      identity = verifyAccessToken(token, this.ctx.jwtSecret);
    } catch (error) {
      if (error instanceof TokenError) return this.shutdown(error.message);
      throw error;
    }
    this.identity = identity;
    if (this.config.isPrivate) {
      const access = await this.access.recheck(identity, this.readExtensions);
      if (this.ended) return;
      if (access === 'revoked')
        return this.shutdown(`You no longer have permission to read from this Channel topic: ${this.subTopic}`);
      if (access === 'refused')
        return this.shutdown(`You do not have permissions to read from this Channel topic: ${this.subTopic}`);
    }
    this.subscription?.updateIdentity({ role: identity.role, claims: identity.claims });
    this.tokenWatch.watch(this.identity);
  }

  /**
   * The database said this user's access changed (removed from a project, role changed):
   * forget cached write checks, run the read check again, and end the channel when it no
   * longer passes.
   */
  async recheckAccess(): Promise<void> {
    if (this.ended || !this.config.isPrivate) return;
    const access = await this.access.recheck(this.identity, this.readExtensions);
    if (this.ended) return;
    if (access !== 'allowed')
      this.shutdown(`You no longer have permission to read from this Channel topic: ${this.subTopic}`);
  }

  private system(extension: string, status: 'ok' | 'error', message: string): void {
    if (this.ended) return;
    this.host.push(this.joinRef, null, this.topic, 'system', { channel: this.subTopic, extension, message, status });
  }

  /** Ends the channel as hosted does on a fatal condition: a system error, then phx_close. */
  shutdown(message: string): void {
    if (this.ended) return;
    this.system('system', 'error', message);
    this.close();
  }

  /** Leaves the topic and tells the client the channel is closed. */
  close(): void {
    if (this.ended) return;
    this.host.push(this.joinRef, this.joinRef, this.topic, 'phx_close', {});
    this.release();
  }

  /** Frees everything the channel holds, without telling the client (socket gone). */
  release(): void {
    if (this.ended) return;
    this.ended = true;
    this.tokenWatch.stop();
    this.ctx.hub.leave(this.subTopic, this.config.isPrivate, this);
    try {
      this.subscription?.unsubscribe();
    } catch (error) {
      this.ctx.log(
        `[realtime] unsubscribe failed on ${this.topic}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.subscription = null;
    this.host.released(this);
  }
}

import type { RealtimeChannel, RealtimePostgresChangesPayload, SupabaseClient } from '@supabase/supabase-js';
import { Observable, share, type OperatorFunction } from 'rxjs';
import type { ChannelStatus, ConnectionPort, Peer, SocketEvent } from '../../lib/ports/realtime.ts';
import type { Database, Tables } from './database.types.ts';

/**
 * Realtime channels as typed RxJS streams. A channel's facts (status, postgres changes
 * typed by table, broadcasts, presence) come out of one Observable: subscribing opens the
 * channel, unsubscribing removes it, so a machine's teardown closes what it opened.
 * Delivery is moved off supabase-js's callback stack to a microtask (`deferred`), like the auth stream.
 */

export type TableName = keyof Database['public']['Tables'];
export type Row<T extends TableName> = Tables<T>;

/** One row change, typed by its table. Deletes carry only what the server sends (the key). */
export type TableChange<T extends TableName> =
  | { table: T; kind: 'insert'; row: Row<T>; committedAt: string }
  | { table: T; kind: 'update'; row: Row<T>; committedAt: string }
  | { table: T; kind: 'delete'; old: Partial<Row<T>>; committedAt: string };

export type ChannelFact<T extends TableName, TBroadcast, TPresence> =
  | { type: 'status'; status: ChannelStatus; message: string | null }
  | { type: 'change'; change: TableChange<T> }
  | { type: 'broadcast'; event: string; payload: TBroadcast }
  | { type: 'presence'; kind: 'sync' | 'join' | 'leave'; peers: Peer<TPresence>[] };

export interface ChannelSpec<T extends TableName> {
  topic: string;
  /** Postgres changes to listen to: one binding per table, with an optional filter. */
  changes?: { table: T; filter?: string }[];
  /** Broadcast event names to listen to. */
  broadcast?: string[];
  /** Presence key for this client (usually the user id); presence is off without it. */
  presenceKey?: string;
  /** A private channel: joining, sending and tracking are authorised by RLS on realtime.messages. */
  private?: boolean;
}

export interface OpenChannel<T extends TableName, TBroadcast, TPresence> {
  /** Hot while subscribed: the first subscriber opens the channel, the last one removes it. */
  facts$: Observable<ChannelFact<T, TBroadcast, TPresence>>;
  /** Publishes this client's presence; re-published after every (re)join. */
  track(meta: TPresence): void;
  /** Sends a broadcast (dropped while the channel is not joined: broadcasts are ephemeral). */
  send(event: string, payload: TBroadcast): void;
}

type AnyClient = SupabaseClient<Database>;

/**
 * Delivery moved off the caller's stack to a microtask, in order, as `observeOn(asapScheduler)`
 * does, but without a scheduled action and subscription per message: a busy channel (every
 * editor's batch, twice) crosses here once per message, so what was rxjs's bookkeeping per
 * message is now one closure, and one microtask per burst.
 */
export function deferred<T>(source: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    let waiting: (() => void)[] = [];
    const flush = () => {
      const now = waiting;
      waiting = [];
      for (const deliver of now) {
        if (subscriber.closed) return;
        deliver();
      }
    };
    const later = (deliver: () => void) => {
      if (waiting.push(deliver) === 1) queueMicrotask(flush);
    };
    return source.subscribe({
      next: (value) => later(() => subscriber.next(value)),
      error: (error: unknown) => later(() => subscriber.error(error)),
      complete: () => later(() => subscriber.complete()),
    });
  });
}

/**
 * Each fact as at most one event (null: none), in step: what `concatMap` to `of(event)` or
 * `EMPTY` says, without an inner stream and subscription per fact. A throwing `toEvent`
 * errors the stream, as it would there.
 */
export function factsAs<A, B>(toEvent: (fact: A) => B | null): OperatorFunction<A, B> {
  return (source) =>
    new Observable<B>((subscriber) =>
      source.subscribe({
        next: (fact) => {
          let event: B | null;
          try {
            event = toEvent(fact);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          if (event !== null) subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}

const describe = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === 'string' ? error : 'The live connection failed';

/**
 * Whose a presence or broadcast is. The embedded server stamps `sender` (the sender's
 * authenticated user id) on every presence and broadcast; a claim (the presence key, a
 * payload's `userId`) that contradicts the stamp is forged and ignored. Hosted Supabase
 * stamps nothing: there the claim stands unchecked (see src/adapters/CONTEXT.md).
 */
export function claimHolds(claimed: unknown, stamp: unknown): boolean {
  if (typeof stamp !== 'string' && stamp !== null) return true;
  return claimed === undefined || claimed === stamp;
}

function presenceHolds(key: string, meta: unknown): boolean {
  if (typeof meta !== 'object' || meta === null) return true;
  const { sender, userId } = meta as { sender?: unknown; userId?: unknown };
  return claimHolds(key, sender) && claimHolds(userId, sender);
}

/** Presence state to a peer list: one entry per key, newest meta first, sorted by key; forged entries left out. */
export function toPeers<TPresence>(state: Record<string, readonly TPresence[]>): Peer<TPresence>[] {
  return Object.entries(state)
    .map(([key, metas]): [string, readonly TPresence[]] => [key, metas.filter((meta) => presenceHolds(key, meta))])
    .filter((entry): entry is [string, readonly TPresence[]] => entry[1].length > 0)
    .map(([key, metas]) => ({ key, meta: metas[metas.length - 1] as TPresence, connections: metas.length, metas }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

function toChange<T extends TableName>(table: T, payload: RealtimePostgresChangesPayload<Row<T>>): TableChange<T> {
  const committedAt = payload.commit_timestamp;
  if (payload.eventType === 'DELETE') return { table, kind: 'delete', old: payload.old, committedAt };
  return { table, kind: payload.eventType === 'INSERT' ? 'insert' : 'update', row: payload.new, committedAt };
}

export function openChannel<T extends TableName, TBroadcast extends Record<string, unknown>, TPresence extends object>(
  client: AnyClient,
  spec: ChannelSpec<T>,
): OpenChannel<T, TBroadcast, TPresence> {
  let channel: RealtimeChannel | null = null;
  let joined = false;
  let presence: TPresence | null = null;

  const publish = () => {
    if (channel && joined && presence) void channel.track(presence);
  };

  const facts$ = new Observable<ChannelFact<T, TBroadcast, TPresence>>((subscriber) => {
    const current = client.channel(spec.topic, {
      config: {
        private: spec.private ?? false,
        presence: spec.presenceKey ? { key: spec.presenceKey, enabled: true } : { enabled: false },
        broadcast: { self: false },
      },
    });
    channel = current;
    for (const { table, filter } of spec.changes ?? []) {
      current.on<Row<T>>(
        'postgres_changes',
        { event: '*', schema: 'public', table, ...(filter ? { filter } : {}) },
        (payload) => subscriber.next({ type: 'change', change: toChange(table, payload) }),
      );
    }
    for (const event of spec.broadcast ?? []) {
      current.on('broadcast', { event }, (message: { payload?: unknown; meta?: unknown }) => {
        const payload = (message.payload ?? {}) as TBroadcast;
        const stamp =
          typeof message.meta === 'object' && message.meta !== null
            ? (message.meta as { sender?: unknown }).sender
            : undefined;
        if (!claimHolds((payload as { userId?: unknown }).userId, stamp)) return;
        subscriber.next({ type: 'broadcast', event, payload });
      });
    }
    if (spec.presenceKey) {
      const peers = () => toPeers(current.presenceState<TPresence>() as unknown as Record<string, TPresence[]>);
      // Only on sync: the client applies a diff's joins before its leaves and calls 'join'
      // in between, when a re-track shows its old and new metas both (a ghost connection).
      current.on('presence', { event: 'sync' }, () =>
        subscriber.next({ type: 'presence', kind: 'sync', peers: peers() }),
      );
    }
    current.subscribe((status, error) => {
      // Compared as text: supabase-js types the status as an enum it does not export by value here.
      switch (status as string) {
        case 'SUBSCRIBED':
          joined = true;
          subscriber.next({ type: 'status', status: 'subscribed', message: null });
          // The server forgets presence when a channel drops; say who we are again.
          publish();
          return;
        case 'CHANNEL_ERROR':
          joined = false;
          subscriber.next({ type: 'status', status: 'errored', message: describe(error) });
          return;
        case 'TIMED_OUT':
          joined = false;
          subscriber.next({ type: 'status', status: 'timedOut', message: 'The server did not answer in time' });
          return;
        case 'CLOSED':
          joined = false;
          subscriber.next({ type: 'status', status: 'closed', message: null });
          return;
      }
    });
    return () => {
      joined = false;
      if (channel === current) channel = null;
      void client.removeChannel(current);
    };
  }).pipe(deferred, share({ resetOnRefCountZero: true }));

  return {
    facts$,
    track(meta) {
      presence = meta;
      publish();
    },
    send(event, payload) {
      if (channel && joined) void channel.send({ type: 'broadcast', event, payload });
    },
  };
}

/** Only the postgres changes of a channel, typed by table. */
export function tableChanges<T extends TableName>(
  client: AnyClient,
  topic: string,
  changes: { table: T; filter?: string }[],
): Observable<ChannelFact<T, never, never>> {
  return openChannel<T, never, never>(client, { topic, changes }).facts$;
}

type SocketCallbacks = Record<'open' | 'close' | 'error', [string, (...args: unknown[]) => void][]>;

/**
 * The realtime socket's life as facts. supabase-js exposes the socket's callback lists
 * (`stateChangeCallbacks`) but no way to unregister from them, so the stream adds its
 * own entries and removes them by reference on unsubscribe. The browser's online/offline
 * events say when the device itself has no network.
 */
export function socketEvents(
  client: AnyClient,
  network: EventTarget | null = typeof window === 'undefined' ? null : window,
): Observable<SocketEvent> {
  return new Observable<SocketEvent>((subscriber) => {
    const realtime = client.realtime;
    const callbacks = realtime.stateChangeCallbacks as unknown as SocketCallbacks;
    const ref = `chartroom-socket-${Math.random().toString(36).slice(2)}`;
    const onOpen = () => subscriber.next({ type: 'socket.opened' });
    const onClose = (event: unknown) => {
      const code = typeof event === 'object' && event !== null && 'code' in event ? event.code : undefined;
      subscriber.next({
        type: 'socket.closed',
        clean: code === 1000 && !realtime.isConnecting() && realtime.channels.length === 0,
      });
    };
    const onError = (error: unknown) => subscriber.next({ type: 'socket.errored', message: describe(error) });
    callbacks.open.push([ref, onOpen]);
    callbacks.close.push([ref, onClose]);
    callbacks.error.push([ref, onError]);

    const lost = () => subscriber.next({ type: 'network.lost' });
    const restored = () => subscriber.next({ type: 'network.restored' });
    network?.addEventListener('offline', lost);
    network?.addEventListener('online', restored);

    // Start from what is true now, so a late subscriber is not left guessing.
    if (realtime.isConnected()) onOpen();
    else if (typeof navigator !== 'undefined' && navigator.onLine === false) lost();

    return () => {
      for (const kind of ['open', 'close', 'error'] as const) {
        const list = callbacks[kind];
        const index = list.findIndex(([entry]) => entry === ref);
        if (index >= 0) list.splice(index, 1);
      }
      network?.removeEventListener('offline', lost);
      network?.removeEventListener('online', restored);
    };
  }).pipe(deferred);
}

export function createConnectionAdapter(client: AnyClient): ConnectionPort {
  return {
    socketEvents$: socketEvents(client),
    reconnect: () => {
      const realtime = client.realtime;
      if (realtime.isConnected()) return Promise.resolve('open');
      if (!realtime.isConnecting()) realtime.connect();
      return Promise.resolve(realtime.isConnected() ? 'open' : realtime.isConnecting() ? 'connecting' : 'closed');
    },
  };
}

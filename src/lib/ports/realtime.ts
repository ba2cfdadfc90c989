import type { Observable } from 'rxjs';

/**
 * The realtime port: the socket's life and a channel's status as plain facts. Nothing
 * here names Supabase; the adapter in src/adapters/supabase/realtime.ts implements it.
 */

/** Facts about the one realtime socket and the device's network, past tense. */
export type SocketEvent =
  | { type: 'socket.opened' }
  /** `clean` when the client closed it on purpose (no channels left, sign-out). */
  | { type: 'socket.closed'; clean: boolean }
  | { type: 'socket.errored'; message: string }
  | { type: 'network.lost' }
  | { type: 'network.restored' };

/** The socket's state as the client knows it. */
export type SocketState = 'open' | 'connecting' | 'closed';

export interface ConnectionPort {
  /** Every socket and network fact; starts with the socket's current state. */
  socketEvents$: Observable<SocketEvent>;
  /**
   * Asks the socket to connect now (no-op when it is connected or connecting) and answers
   * what the socket is at that moment: an open socket is the truth even when no
   * `socket.opened` fact will come (it never dropped, say while the device reported offline).
   */
  reconnect(): Promise<SocketState>;
}

/** A channel's status as the app sees it. */
export type ChannelStatus = 'subscribed' | 'errored' | 'timedOut' | 'closed';

/** Someone in a channel's presence: one entry per person, however many tabs they have open. */
export interface Peer<TMeta> {
  key: string;
  /** The newest of that person's presence metas (one per tab/connection). */
  meta: TMeta;
  /** How many connections that person has in the channel. */
  connections: number;
  /** Every one of their metas, oldest first (one per connection). */
  metas: readonly TMeta[];
}

import { assertEvent, assign, not, setup } from 'xstate';
import type { SocketEvent, SocketState } from '../../src/lib/ports/realtime.ts';
import { output, requestNotProvided, requestValue, streamNotProvided } from '../shared.ts';

/**
 * The realtime socket's life. Facts come from the adapter's `socketEvents` stream (socket
 * opened/closed/errored, network lost/restored); the machine decides what they mean:
 * a drop starts `reconnecting`, which waits a growing `backoff` and then asks the socket
 * to connect (`reconnect`); after `maxAttempts` it settles in `offline` until the
 * network returns, a person presses Retry, or a slow periodic retry fires.
 * supabase-js also retries on its own; asking it to connect while it is connecting is a
 * no-op, so the two never fight.
 */

export type ConnectionIntent = { type: 'connection.retry' };
export type ConnectionEvent = SocketEvent | ConnectionIntent;

export interface ConnectionContext {
  /** Reconnect attempts since the socket was last live. */
  attempts: number;
  /** Why the socket is not live, in words for people. */
  reason: string | null;
}

export type ConnectionTag = 'live' | 'down' | 'pending' | 'offline';

export const MAX_ATTEMPTS = 6;
const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 15_000;

/** 1 s, 2 s, 4 s, 8 s, 15 s, 15 s ...: the wait before reconnect attempt `attempts + 1`. */
export function backoffDelay(attempts: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** Math.max(0, attempts), MAX_DELAY_MS);
}

const LOST = 'Lost the live connection. Reconnecting…';
const OFFLINE = "You're offline. Changes by others will appear when the connection is back.";
const GAVE_UP = "Can't reach the live server. Retrying in the background.";

export const connectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    tags: {} as ConnectionTag,
  },
  actors: {
    socketEvents: streamNotProvided<SocketEvent, void>('connection', 'socketEvents'),
    reconnect: requestNotProvided<SocketState, void>('connection', 'reconnect'),
  },
  delays: {
    backoff: ({ context }) => backoffDelay(context.attempts),
    offlineRetry: 60_000,
  },
  actions: {
    resetAttempts: assign({ attempts: 0, reason: null }),
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    noteLost: assign({
      reason: ({ event }) => {
        assertEvent(event, ['socket.closed', 'socket.errored']);
        return event.type === 'socket.errored' ? `${LOST} (${event.message})` : LOST;
      },
    }),
    noteOffline: assign({ reason: OFFLINE }),
    noteGaveUp: assign({ reason: GAVE_UP }),
  },
  guards: {
    cleanClose: ({ event }) => event.type === 'socket.closed' && event.clean,
    outOfAttempts: ({ context }) => context.attempts >= MAX_ATTEMPTS,
    /** The socket answered that it is open: it is the truth, whatever the device's network said. */
    socketOpen: (_, state: SocketState) => state === 'open',
  },
}).createMachine({
  id: 'connection',
  context: { attempts: 0, reason: null },
  invoke: { id: 'socketEvents', src: 'socketEvents' },
  initial: 'connecting',
  on: {
    'socket.opened': { target: '.live', actions: 'resetAttempts' },
    'network.lost': { target: '.offline', actions: 'noteOffline' },
  },
  states: {
    connecting: {
      tags: ['pending'],
      on: {
        'socket.closed': [
          { guard: 'cleanClose', target: 'idle' },
          { target: 'reconnecting', actions: 'noteLost' },
        ],
        'socket.errored': { target: 'reconnecting', actions: 'noteLost' },
      },
    },
    /** No channel needs the socket, and the client closed it on purpose. */
    idle: {
      on: {
        'socket.closed': { guard: not('cleanClose'), target: 'reconnecting', actions: 'noteLost' },
        'socket.errored': { target: 'reconnecting', actions: 'noteLost' },
      },
    },
    live: {
      tags: ['live'],
      on: {
        'socket.closed': [
          { guard: 'cleanClose', target: 'idle' },
          { target: 'reconnecting', actions: 'noteLost' },
        ],
        'socket.errored': { target: 'reconnecting', actions: 'noteLost' },
      },
    },
    reconnecting: {
      tags: ['down'],
      initial: 'waiting',
      on: {
        'connection.retry': { target: '.retrying', actions: 'resetAttempts' },
      },
      states: {
        waiting: {
          always: { guard: 'outOfAttempts', target: '#connection.offline', actions: 'noteGaveUp' },
          after: { backoff: 'retrying' },
        },
        retrying: {
          tags: ['pending'],
          entry: 'countAttempt',
          invoke: {
            id: 'reconnect',
            src: 'reconnect',
            // An open socket ends it at once (it may never have dropped, so no socket.opened
            // will come); otherwise the socket's own facts decide, and we wait before the next try.
            ...requestValue({
              done: [
                { guard: { type: 'socketOpen', params: output }, target: '#connection.live', actions: 'resetAttempts' },
                { target: 'waiting' },
              ],
              threw: 'waiting',
            }),
          },
        },
      },
    },
    offline: {
      tags: ['down', 'offline'],
      on: {
        'connection.retry': { target: 'reconnecting.retrying', actions: 'resetAttempts' },
        'network.restored': { target: 'reconnecting.retrying', actions: 'resetAttempts' },
      },
      after: { offlineRetry: { target: 'reconnecting.retrying', actions: 'resetAttempts' } },
    },
  },
});

export type ConnectionMachine = typeof connectionMachine;

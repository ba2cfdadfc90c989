import { assertEvent, assign, sendTo, setup } from 'xstate';
import type { PlaybackFact, PlayShown, RoomPlay } from '../../src/lib/ports/test-playback.ts';
import { callbackNotProvided } from '../shared.ts';

/**
 * Test paths played for the room, on one open machine. What this person plays (a path or
 * saved test selected in the Tests panel, and the step shown) goes to the room; what the
 * others play comes in, one play per person, and the diagram shows the first one this
 * person still watches, with who plays it. "Stop watching" hides that person's play
 * until they stop or play something else. A player who leaves the channel (tab closed,
 * connection lost) stops playing for everyone. Plays are only true while seen live: after a
 * drop they are forgotten, and a (re)join asks the room what is playing.
 */

export type PlaybackIntent =
  /** This person plays `play` now (null: they stopped playing). */
  { type: 'playback.show'; play: PlayShown | null } | { type: 'playback.unwatch'; userId: string };

export type PlaybackEvent = PlaybackIntent | PlaybackFact;

export type PlaybackCommand = { type: 'send.show'; play: PlayShown | null } | { type: 'send.ask' };

export interface PlaybackInput {
  machineId: string;
  userId: string;
}

export interface PlaybackContext extends PlaybackInput {
  /** What the others play, by user id, in the order they started. */
  plays: RoomPlay[];
  /** Players whose current play this person stopped watching. */
  unwatched: string[];
  mine: PlayShown | null;
  error: string | null;
}

/** At most this many people's plays are kept (the rest are ignored until one stops). */
export const MAX_PLAYERS = 50;

/** The play shown on this person's diagram: the first one they still watch. */
export const watchedPlay = (c: PlaybackContext): RoomPlay | null =>
  c.plays.find((p) => !c.unwatched.includes(p.userId)) ?? null;

const sameTitle = (a: RoomPlay | undefined, b: RoomPlay) => a !== undefined && a.title === b.title;

export const testPlaybackMachine = setup({
  types: {
    input: {} as PlaybackInput,
    context: {} as PlaybackContext,
    events: {} as PlaybackEvent,
    tags: {} as 'live',
  },
  actors: {
    channel: callbackNotProvided<PlaybackCommand, PlaybackInput>('test playback', 'channel'),
  },
  guards: {
    playsSomething: ({ context }) => context.mine !== null,
    fromOther: ({ context, event }) =>
      (event.type === 'playback.played' && event.play.userId !== context.userId) ||
      ((event.type === 'playback.stopped' || event.type === 'playback.left') && event.userId !== context.userId),
  },
  actions: {
    rememberMine: assign(({ event }) => {
      assertEvent(event, 'playback.show');
      return { mine: event.play };
    }),
    sendMine: sendTo('channel', ({ context }): PlaybackCommand => ({ type: 'send.show', play: context.mine })),
    ask: sendTo('channel', { type: 'send.ask' } satisfies PlaybackCommand),
    addPlay: assign(({ context, event }) => {
      assertEvent(event, 'playback.played');
      const play = event.play;
      const at = context.plays.findIndex((p) => p.userId === play.userId);
      if (at < 0 && context.plays.length >= MAX_PLAYERS) return {};
      const plays = at < 0 ? [...context.plays, play] : context.plays.map((p, i) => (i === at ? play : p));
      // A new play (another path or test) is shown again to whoever stopped watching the last one.
      const unwatched = sameTitle(context.plays[at], play)
        ? context.unwatched
        : context.unwatched.filter((id) => id !== play.userId);
      return { plays, unwatched };
    }),
    removePlay: assign(({ context, event }) => {
      assertEvent(event, ['playback.stopped', 'playback.left']);
      return {
        plays: context.plays.filter((p) => p.userId !== event.userId),
        unwatched: context.unwatched.filter((id) => id !== event.userId),
      };
    }),
    unwatch: assign(({ context, event }) => {
      assertEvent(event, 'playback.unwatch');
      return context.unwatched.includes(event.userId) ? {} : { unwatched: [...context.unwatched, event.userId] };
    }),
    forgetPlays: assign(({ event }) => {
      assertEvent(event, 'playback.lost');
      return { plays: [], unwatched: [], error: event.message };
    }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'testPlayback',
  context: ({ input }) => ({ ...input, plays: [], unwatched: [], mine: null, error: null }),
  invoke: {
    id: 'channel',
    src: 'channel',
    input: ({ context }) => ({ machineId: context.machineId, userId: context.userId }),
  },
  on: {
    'playback.show': { actions: ['rememberMine', 'sendMine'] },
    'playback.unwatch': { actions: 'unwatch' },
    'playback.played': { guard: 'fromOther', actions: 'addPlay' },
    'playback.stopped': { guard: 'fromOther', actions: 'removePlay' },
    'playback.left': { guard: 'fromOther', actions: 'removePlay' },
    'playback.asked': { guard: 'playsSomething', actions: 'sendMine' },
  },
  initial: 'joining',
  states: {
    joining: {
      on: {
        'playback.joined': { target: 'live', actions: ['clearError', 'ask', 'sendMine'] },
        'playback.lost': { actions: 'forgetPlays' },
      },
    },
    live: {
      tags: ['live'],
      on: { 'playback.lost': { target: 'joining', actions: 'forgetPlays' } },
    },
  },
});

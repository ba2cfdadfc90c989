import { assertEvent, assign, sendTo, setup } from 'xstate';
import {
  peerKey,
  type Point,
  type PresenceFact,
  type PresenterOffer,
  type ReplayLook,
  type View,
} from '../../src/lib/ports/canvas-presence.ts';
import { sameLook } from './replay-follow.ts';
import { callbackNotProvided } from '../shared.ts';

/**
 * Who else is on this machine's canvas and what they are doing: their selection, pointer
 * and view, kept per person; plus follow mode (this person's viewport follows someone
 * else's until they pan or zoom themselves, or that person leaves). The channel actor
 * is two-way: facts come in, this person's selection, pointer and view go out. Each
 * person's simulation replay step rides on presence with their selection, so a follower
 * can show the presenter's step (the open machine routes it to the simulation).
 * Observe controls ride on presence too: a person may refuse to be followed (nobody can
 * follow them, and whoever did stops), and a presenter may ask everyone to follow them
 * ("Spotlight"): each person is asked once, may follow or decline, and stops following
 * when the spotlight ends.
 */

export interface CanvasPeer {
  userId: string;
  /** The person's coding agent (`chartroom mcp`), kept apart from their tabs. */
  agent: boolean;
  selection: string[];
  cursor: Point | null;
  view: View | null;
  /** Their simulation and replay step (null: none open, or an older client). */
  replay: ReplayLook | null;
  /** Others may follow them. */
  followable: boolean;
  /** They ask everyone to follow them. */
  spotlight: boolean;
}

/** What a person does, imperative. */
export type PresenceIntent =
  | { type: 'presence.point'; at: Point | null }
  | { type: 'presence.select'; selection: string[] }
  /** This person's simulation replay step (sent only when changed). */
  | { type: 'presence.replay'; replay: ReplayLook | null }
  | { type: 'presence.look'; view: View }
  | { type: 'presence.follow'; userId: string }
  | { type: 'presence.unfollow' }
  /** Whether others may follow this person; refusing ends this person's spotlight. */
  | { type: 'presence.allowFollow'; followable: boolean }
  /** Ask everyone here to follow this person (which lets them), or stop asking. */
  | { type: 'presence.spotlight'; on: boolean }
  /** Follow the presenter who asked. */
  | { type: 'presence.acceptSpotlight' }
  /** Not now: this presenter's spotlight is not asked again until they start a new one. */
  | { type: 'presence.declineSpotlight' };

export type PresenceEvent = PresenceIntent | PresenceFact;

export type PresenceCommand =
  | { type: 'send.selection'; selection: string[] }
  | { type: 'send.replay'; replay: ReplayLook | null }
  | { type: 'send.cursor'; at: Point | null }
  | { type: 'send.view'; view: View }
  | { type: 'send.offer'; offer: PresenterOffer };

export interface PresenceInput {
  machineId: string;
  userId: string;
}

export interface PresenceContext extends PresenceInput {
  /** Everyone else on this canvas (and this person's own agent), by `peerKey`. */
  peers: Record<string, CanvasPeer>;
  following: string | null;
  /** This person's selection, re-sent after a rejoin. */
  selection: string[];
  /** This person's replay step, tracked with the selection. */
  replay: ReplayLook | null;
  /** What this person offers: may they be followed, do they spotlight. */
  offer: PresenterOffer;
  /** A presenter who asks this person to follow them, not yet answered. */
  asked: string | null;
  /** Presenters whose current spotlight this person declined. */
  declined: string[];
  error: string | null;
}

// Peer ids come from other browsers: look them up as own keys only, so an id such as
// `constructor` or `__proto__` can neither match nor reshape the record.
const peerOf = (peers: Record<string, CanvasPeer>, userId: string): CanvasPeer | undefined =>
  Object.hasOwn(peers, userId) ? peers[userId] : undefined;

const followable = (peers: Record<string, CanvasPeer>, userId: string): boolean =>
  peerOf(peers, userId)?.followable === true;

/**
 * Follow and spotlight after a presence sync: following stops when that person leaves,
 * refuses to be followed, or ends the spotlight this person followed; a declined
 * spotlight is forgotten once it ends; the presenter asking is the one asked before while
 * they still spotlight, else the first spotlighting peer not declined nor already followed.
 */
function spotlightAfter(
  context: PresenceContext,
  peers: Record<string, CanvasPeer>,
): Pick<PresenceContext, 'following' | 'asked' | 'declined'> {
  const lit = (userId: string | null): userId is string => userId !== null && peerOf(peers, userId)?.spotlight === true;
  const ended = (userId: string) => peerOf(context.peers, userId)?.spotlight === true && !lit(userId);
  const following =
    context.following && followable(peers, context.following) && !ended(context.following) ? context.following : null;
  const declined = context.declined.filter(lit);
  const asking = Object.keys(peers).filter(
    (key) => lit(key) && !declined.includes(key) && key !== following && key !== context.userId,
  );
  const asked = lit(context.asked) && context.asked !== following ? context.asked : (asking[0] ?? null);
  return { following, asked, declined };
}

const sameSelection = (a: string[], b: string[]): boolean => a.length === b.length && a.every((id, i) => id === b[i]);

export const canvasPresenceMachine = setup({
  types: {
    input: {} as PresenceInput,
    context: {} as PresenceContext,
    events: {} as PresenceEvent,
    tags: {} as 'live' | 'joining' | 'offline',
  },
  actors: {
    channel: callbackNotProvided<PresenceCommand, PresenceInput>('canvas presence', 'channel'),
  },
  guards: {
    canFollow: ({ context, event }) =>
      event.type === 'presence.follow' && event.userId !== context.userId && followable(context.peers, event.userId),
    wasAsked: ({ context }) => context.asked !== null && followable(context.peers, context.asked),
    selectionChanged: ({ context, event }) =>
      event.type === 'presence.select' && !sameSelection(context.selection, event.selection),
    replayChanged: ({ context, event }) => event.type === 'presence.replay' && !sameLook(context.replay, event.replay),
  },
  actions: {
    syncPeers: assign(({ context, event }) => {
      assertEvent(event, 'presence.synced');
      const peers: Record<string, CanvasPeer> = Object.fromEntries(
        event.peers
          // This person's own tabs are not peers; their agent is.
          .filter((peer) => peer.agent || peer.userId !== context.userId)
          .map((peer) => {
            const key = peerKey(peer.userId, peer.agent);
            const known = peerOf(context.peers, key);
            return [
              key,
              {
                userId: peer.userId,
                agent: peer.agent,
                selection: peer.selection,
                cursor: known?.cursor ?? null,
                view: known?.view ?? null,
                replay: peer.replay ?? null,
                // An agent has no view to follow or to spotlight.
                followable: !peer.agent && peer.followable !== false,
                spotlight: !peer.agent && peer.spotlight === true,
              },
            ];
          }),
      );
      return { peers, ...spotlightAfter(context, peers) };
    }),
    moveCursor: assign(({ context, event }) => {
      assertEvent(event, 'cursor.moved');
      const key = peerKey(event.userId, event.agent === true);
      const peer = peerOf(context.peers, key);
      return peer ? { peers: { ...context.peers, [key]: { ...peer, cursor: event.at } } } : {};
    }),
    moveView: assign(({ context, event }) => {
      assertEvent(event, 'view.moved');
      const peer = peerOf(context.peers, event.userId);
      return peer ? { peers: { ...context.peers, [event.userId]: { ...peer, view: event.view } } } : {};
    }),
    follow: assign(({ event }) => {
      assertEvent(event, 'presence.follow');
      return { following: event.userId };
    }),
    unfollow: assign({ following: null }),
    rememberFollowable: assign(({ context, event }) => {
      assertEvent(event, 'presence.allowFollow');
      return { offer: { followable: event.followable, spotlight: event.followable && context.offer.spotlight } };
    }),
    rememberSpotlight: assign(({ context, event }) => {
      assertEvent(event, 'presence.spotlight');
      // Asking to be followed lets others follow.
      return { offer: { followable: event.on || context.offer.followable, spotlight: event.on } };
    }),
    sendOffer: sendTo('channel', ({ context }): PresenceCommand => ({ type: 'send.offer', offer: context.offer })),
    followPresenter: assign(({ context }) => ({ following: context.asked, asked: null })),
    declinePresenter: assign(({ context }) => ({
      declined: context.asked ? [...context.declined, context.asked] : context.declined,
      asked: null,
    })),
    rememberSelection: assign(({ event }) => {
      assertEvent(event, 'presence.select');
      return { selection: event.selection };
    }),
    sendSelection: sendTo('channel', ({ context }): PresenceCommand => ({
      type: 'send.selection',
      selection: context.selection,
    })),
    rememberReplay: assign(({ event }) => {
      assertEvent(event, 'presence.replay');
      return { replay: event.replay };
    }),
    sendReplay: sendTo('channel', ({ context }): PresenceCommand => ({ type: 'send.replay', replay: context.replay })),
    sendCursor: sendTo('channel', ({ event }): PresenceCommand => {
      assertEvent(event, 'presence.point');
      return { type: 'send.cursor', at: event.at };
    }),
    sendView: sendTo('channel', ({ event }): PresenceCommand => {
      assertEvent(event, 'presence.look');
      return { type: 'send.view', view: event.view };
    }),
    // Cursors and views are only true while seen live: after a drop, wait for fresh ones.
    forgetPeers: assign(({ event }) => {
      assertEvent(event, 'presence.lost');
      return { peers: {}, following: null, asked: null, error: event.message };
    }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'canvasPresence',
  context: ({ input }) => ({
    ...input,
    peers: {},
    following: null,
    selection: [],
    replay: null,
    offer: { followable: true, spotlight: false },
    asked: null,
    declined: [],
    error: null,
  }),
  invoke: {
    id: 'channel',
    src: 'channel',
    input: ({ context }) => ({ machineId: context.machineId, userId: context.userId }),
  },
  initial: 'joining',
  on: {
    'presence.select': { guard: 'selectionChanged', actions: ['rememberSelection', 'sendSelection'] },
    'presence.replay': { guard: 'replayChanged', actions: ['rememberReplay', 'sendReplay'] },
    'presence.point': { actions: 'sendCursor' },
    'presence.look': { actions: 'sendView' },
    'presence.lost': { target: '.offline', actions: 'forgetPeers' },
    'presence.joined': { target: '.live', actions: ['clearError', 'sendSelection', 'sendOffer'] },
    'presence.synced': { actions: 'syncPeers' },
    'cursor.moved': { actions: 'moveCursor' },
    'view.moved': { actions: 'moveView' },
    'presence.follow': { guard: 'canFollow', actions: 'follow' },
    'presence.unfollow': { actions: 'unfollow' },
    'presence.allowFollow': { actions: ['rememberFollowable', 'sendOffer'] },
    'presence.spotlight': { actions: ['rememberSpotlight', 'sendOffer'] },
    'presence.acceptSpotlight': { guard: 'wasAsked', actions: 'followPresenter' },
    'presence.declineSpotlight': { actions: 'declinePresenter' },
  },
  states: {
    joining: { tags: ['joining'] },
    offline: { tags: ['offline'] },
    live: { tags: ['live'] },
  },
});

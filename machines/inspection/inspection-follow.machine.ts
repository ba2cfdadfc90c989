import { assertEvent, assign, sendParent, sendTo, setup } from 'xstate';
import type { FollowFact, InspectionLook, Presenter } from '../../src/lib/ports/inspection-follow.ts';
import { callbackNotProvided } from '../shared.ts';

/**
 * Follow mode on the inspection page, invoked by the inspection machine. A
 * member may present: what they look at (session, actor, replay position) goes to the
 * project's members on every change. A member may follow one presenter: each look of theirs
 * goes up to the inspection machine as `inspection.lookFollowed`, which shows it. Choosing a
 * session, an actor or a position oneself ends following, as panning does on the canvas.
 * Presenters are only true while seen live: after a drop they are forgotten, and a
 * (re)join asks the room who presents.
 */

export type FollowIntent =
  /** Start presenting (`look`: what this person looks at now). */
  | { type: 'follow.present'; look: InspectionLook }
  | { type: 'follow.stopPresenting' }
  | { type: 'follow.follow'; userId: string }
  | { type: 'follow.unfollow' }
  /** This person's look changed: `chosen` when they chose it (which ends following). */
  | { type: 'follow.lookChanged'; look: InspectionLook; chosen: boolean };

export type FollowEvent = FollowIntent | FollowFact;

export type FollowCommand = { type: 'send.present'; look: InspectionLook | null } | { type: 'send.ask' };

export interface FollowInput {
  projectId: string;
  userId: string;
}

export interface FollowContext extends FollowInput {
  /** The others presenting, in the order they started. */
  presenters: Presenter[];
  /** What this person looks at. */
  mine: InspectionLook;
  /** The presenter followed (while `following`). */
  followed: string | null;
}

/** What the parent is told to show: the followed presenter's look. */
export type FollowedLook = { type: 'inspection.lookFollowed'; look: InspectionLook };

/** At most this many presenters are kept (the rest are ignored until one stops). */
export const MAX_PRESENTERS = 50;

const NO_LOOK: InspectionLook = { sessionId: null, actorId: null, position: null };

export const inspectionFollowMachine = setup({
  types: {
    input: {} as FollowInput,
    context: {} as FollowContext,
    events: {} as FollowEvent,
    tags: {} as 'live' | 'presenting' | 'following',
  },
  actors: {
    channel: callbackNotProvided<FollowCommand, FollowInput>('inspection follow', 'channel'),
  },
  guards: {
    fromOther: ({ context, event }) =>
      (event.type === 'follow.presented' && event.presenter.userId !== context.userId) ||
      ((event.type === 'follow.stopped' || event.type === 'follow.asked') && event.userId !== context.userId),
    fromFollowed: ({ context, event }) =>
      (event.type === 'follow.presented' && event.presenter.userId === context.followed) ||
      (event.type === 'follow.stopped' && event.userId === context.followed),
    knownPresenter: ({ context, event }) => {
      assertEvent(event, 'follow.follow');
      return event.userId !== context.userId && context.presenters.some((p) => p.userId === event.userId);
    },
    chosen: ({ event }) => event.type === 'follow.lookChanged' && event.chosen,
  },
  actions: {
    rememberLook: assign(({ event }) => {
      assertEvent(event, ['follow.present', 'follow.lookChanged']);
      return { mine: event.look };
    }),
    sendMine: sendTo('channel', ({ context }): FollowCommand => ({ type: 'send.present', look: context.mine })),
    sendStop: sendTo('channel', { type: 'send.present', look: null } satisfies FollowCommand),
    ask: sendTo('channel', { type: 'send.ask' } satisfies FollowCommand),
    addPresenter: assign(({ context, event }) => {
      assertEvent(event, 'follow.presented');
      const { presenter } = event;
      const at = context.presenters.findIndex((p) => p.userId === presenter.userId);
      if (at < 0 && context.presenters.length >= MAX_PRESENTERS) return {};
      return {
        presenters:
          at < 0 ? [...context.presenters, presenter] : context.presenters.map((p, i) => (i === at ? presenter : p)),
      };
    }),
    removePresenter: assign(({ context, event }) => {
      assertEvent(event, 'follow.stopped');
      return { presenters: context.presenters.filter((p) => p.userId !== event.userId) };
    }),
    forgetPresenters: assign({ presenters: [] }),
    setFollowed: assign(({ event }) => {
      assertEvent(event, 'follow.follow');
      return { followed: event.userId };
    }),
    clearFollowed: assign({ followed: null }),
    /** The parent shows what the followed presenter looks at. */
    showFollowed: sendParent(({ context }): FollowedLook => {
      const look = context.presenters.find((p) => p.userId === context.followed)?.look ?? NO_LOOK;
      return { type: 'inspection.lookFollowed', look };
    }),
  },
}).createMachine({
  id: 'inspectionFollow',
  context: ({ input }) => ({ ...input, presenters: [], mine: NO_LOOK, followed: null }),
  invoke: {
    id: 'channel',
    src: 'channel',
    input: ({ context }) => ({ projectId: context.projectId, userId: context.userId }),
  },
  type: 'parallel',
  states: {
    channel: {
      initial: 'joining',
      states: {
        joining: {
          on: { 'follow.joined': { target: 'live', actions: 'ask' } },
        },
        live: {
          tags: ['live'],
          on: { 'follow.lost': { target: 'joining' } },
        },
      },
    },
    mode: {
      initial: 'solo',
      on: {
        'follow.lookChanged': { actions: 'rememberLook' },
        'follow.presented': { guard: 'fromOther', actions: 'addPresenter' },
        'follow.stopped': { guard: 'fromOther', actions: 'removePresenter' },
        'follow.lost': { actions: 'forgetPresenters' },
      },
      states: {
        solo: {
          on: {
            'follow.present': { target: 'presenting', actions: ['rememberLook', 'sendMine'] },
            'follow.follow': { guard: 'knownPresenter', target: 'following', actions: ['setFollowed', 'showFollowed'] },
          },
        },
        presenting: {
          tags: ['presenting'],
          on: {
            'follow.lookChanged': { actions: ['rememberLook', 'sendMine'] },
            'follow.asked': { guard: 'fromOther', actions: 'sendMine' },
            'follow.joined': { actions: 'sendMine' },
            'follow.stopPresenting': { target: 'solo', actions: 'sendStop' },
            'follow.follow': {
              guard: 'knownPresenter',
              target: 'following',
              actions: ['sendStop', 'setFollowed', 'showFollowed'],
            },
          },
        },
        following: {
          tags: ['following'],
          exit: 'clearFollowed',
          on: {
            'follow.presented': [
              { guard: 'fromFollowed', actions: ['addPresenter', 'showFollowed'] },
              { guard: 'fromOther', actions: 'addPresenter' },
            ],
            'follow.stopped': [
              { guard: 'fromFollowed', target: 'solo', actions: 'removePresenter' },
              { guard: 'fromOther', actions: 'removePresenter' },
            ],
            'follow.lost': { target: 'solo', actions: 'forgetPresenters' },
            'follow.lookChanged': [
              { guard: 'chosen', target: 'solo', actions: 'rememberLook' },
              { actions: 'rememberLook' },
            ],
            'follow.unfollow': { target: 'solo' },
            'follow.follow': { guard: 'knownPresenter', target: 'following', actions: ['setFollowed', 'showFollowed'] },
            'follow.present': { target: 'presenting', actions: ['rememberLook', 'sendMine'] },
          },
        },
      },
    },
  },
});

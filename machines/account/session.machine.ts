import { assertEvent, assign, not, setup } from 'xstate';
import type { AuthEvent, AuthResult, Credentials, SessionUser, SignUpResult } from '../../src/lib/ports/auth.ts';
import type { OwnProfileFact } from '../../src/lib/ports/profile.ts';
import {
  output,
  request,
  requestFirst,
  requestNotProvided,
  requestValue,
  streamNotProvided,
  UNEXPECTED,
} from '../shared.ts';

/**
 * The session: who is using Chartroom on this device. Identity facts arrive only from the
 * `authEvents` stream (a restored session, sign-in and sign-out from any tab, refreshed
 * tokens); the request actors (`signIn`, `signUp`, ...) report failures and otherwise
 * leave the state change to the fact that follows. So one path carries session data,
 * whichever tab or request caused it. While someone is signed in, their own profile is
 * watched (`ownProfile`) for the display name the top bar shows.
 */

/** What a person asks for, imperative. */
export type SessionIntent =
  | { type: 'session.signIn'; email: string; password: string }
  | { type: 'session.signUp'; email: string; password: string }
  | { type: 'session.signInAsGuest' }
  | { type: 'session.signOut' };

export type SessionEvent = SessionIntent | AuthEvent | OwnProfileFact;

export interface SessionContext {
  user: SessionUser | null;
  /** The user's profile name, once their profile has been read; null until then. */
  displayName: string | null;
  /** The user's colour and uploaded avatar (for the top bar), with the name; null until read. */
  look: { color: string; avatarUrl: string | null } | null;
  /** When the access token expires, seconds since the epoch (null when unknown). */
  expiresAt: number | null;
  /** The last request's failure, in words for people; cleared by the next attempt. */
  error: string | null;
  /** Non-error news for the signed-out form (e.g. "check your email"). */
  notice: string | null;
}

/** Tags the views branch on; states stay an implementation detail of the machine. */
export type SessionTag =
  | 'restoring'
  | 'signedOut'
  | 'pending'
  | 'failed'
  | 'notice'
  | 'authenticated'
  | 'member'
  | 'guest'
  | 'signingOut'
  | 'refreshing';

const SIGNED_OUT_ELSEWHERE =
  'You were signed out (in another tab, or your session was ended). Sign in again to continue.';
const EXPIRED = 'Your session has expired. Sign in again to continue.';
/** The longest delay a JS timer can hold (2^31-1 ms); a token that far from expiry is refreshed early, which is harmless. */
const MAX_DELAY = 2_147_483_647;

const credentials = ({ event }: { event: SessionEvent }): Credentials => {
  assertEvent(event, ['session.signIn', 'session.signUp']);
  return { email: event.email, password: event.password };
};

const sessionSetup = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    tags: {} as SessionTag,
  },
  // Placeholders that fail loudly: the composition root and tests provide real ones.
  actors: {
    authEvents: streamNotProvided<AuthEvent, void>('session', 'authEvents'),
    signIn: requestNotProvided<AuthResult, Credentials>('session', 'signIn'),
    signUp: requestNotProvided<SignUpResult, Credentials>('session', 'signUp'),
    signInAsGuest: requestNotProvided<AuthResult, void>('session', 'signInAsGuest'),
    signOut: requestNotProvided<void, void>('session', 'signOut'),
    refreshSession: requestNotProvided<AuthResult, void>('session', 'refreshSession'),
    ownProfile: streamNotProvided<OwnProfileFact, { userId: string }>('session', 'ownProfile'),
  },
  delays: {
    // supabase-js refreshes ahead of expiry; this fires only if that did not happen (a
    // sleeping tab, a failing network), a few seconds after the token stopped working.
    accessTokenExpiry: ({ context }) =>
      context.expiresAt === null
        ? MAX_DELAY
        : Math.min(MAX_DELAY, Math.max(0, context.expiresAt * 1000 - Date.now() + 5_000)),
    refreshRetry: 5_000,
  },
  actions: {
    rememberSession: assign(({ context, event }) => {
      assertEvent(event, ['auth.sessionRestored', 'auth.signedIn', 'auth.tokenRefreshed', 'auth.userUpdated']);
      const user = event.session?.user ?? null;
      // Another person's session starts without a name until their profile is read.
      const same = user !== null && user.id === context.user?.id;
      const displayName = same ? context.displayName : null;
      const look = same ? context.look : null;
      return { user, displayName, look, expiresAt: event.session?.expiresAt ?? null, error: null, notice: null };
    }),
    rememberName: assign(({ context, event }) => {
      assertEvent(event, 'profile.changed');
      if (event.profile.id !== context.user?.id) return {};
      return {
        displayName: event.profile.displayName,
        look: { color: event.profile.color, avatarUrl: event.profile.avatarUrl },
      };
    }),
    forgetUser: assign({ user: null, displayName: null, look: null, expiresAt: null }),
    noticeSignedOutElsewhere: assign({
      user: null,
      displayName: null,
      look: null,
      expiresAt: null,
      notice: SIGNED_OUT_ELSEWHERE,
    }),
    noticeExpired: assign({ user: null, displayName: null, look: null, expiresAt: null, notice: EXPIRED }),
    rememberRefreshed: assign((_, result: AuthResult) =>
      result.ok ? { user: result.session.user, expiresAt: result.session.expiresAt } : {},
    ),
    clearMessages: assign({ error: null, notice: null }),
    showRefusal: assign((_, result: AuthResult | SignUpResult) => ({ error: result.ok ? null : result.error.message })),
    showUnexpected: assign({ error: UNEXPECTED }),
    showConfirmationSent: assign((_, result: SignUpResult) => ({
      notice:
        result.ok && result.session === null
          ? `Check ${result.confirmationSentTo} for a link to confirm your account, then sign in.`
          : null,
    })),
  },
  guards: {
    factHasSession: ({ event }) => {
      assertEvent(event, ['auth.sessionRestored', 'auth.signedIn', 'auth.tokenRefreshed', 'auth.userUpdated']);
      return event.session !== null;
    },
    factIsGuest: ({ event }) => {
      assertEvent(event, ['auth.sessionRestored', 'auth.signedIn', 'auth.tokenRefreshed', 'auth.userUpdated']);
      return event.session?.user.isAnonymous === true;
    },
    factIsOtherUser: ({ context, event }) => {
      assertEvent(event, ['auth.signedIn', 'auth.userUpdated']);
      return event.session.user.id !== context.user?.id;
    },
    /** The server said no (bad credentials, sign-ups closed...). */
    refused: (_, result: AuthResult | SignUpResult) => !result.ok,
    /** A refresh that did not work and is not an expiry: the network, most likely; try again. */
    expired: (_, result: AuthResult) => !result.ok && result.error.code === 'session_expired',
    confirmationSent: (_, result: SignUpResult) => result.ok && result.session === null,
  },
});

/**
 * The access token's life inside `signedIn` and `guest`: `active` until the token should
 * have been refreshed, then `refreshing` (asks once), `waitingToRetry` on a network
 * failure. A refresh token that no longer works ends the session with a message.
 */
const tokenLife = sessionSetup.createStateConfig({
  initial: 'active' as const,
  states: {
    active: {
      after: { accessTokenExpiry: 'refreshing' },
      on: { 'auth.tokenRefreshed': { target: 'active', reenter: true, actions: 'rememberSession' } },
    },
    refreshing: {
      tags: ['refreshing'],
      invoke: {
        id: 'refreshSession',
        src: 'refreshSession',
        ...requestFirst({
          first: { guard: { type: 'expired', params: output }, target: '#session.signedOut', actions: 'noticeExpired' },
          refused: { target: 'waitingToRetry' },
          done: { target: 'active', actions: { type: 'rememberRefreshed', params: output } },
          threw: 'waitingToRetry',
        }),
      },
      on: {
        'auth.tokenRefreshed': { target: 'active', actions: 'rememberSession' },
        // supabase-js signs out when the refresh token is refused: that is an expiry here.
        'auth.signedOut': { target: '#session.signedOut', actions: 'noticeExpired' },
      },
    },
    waitingToRetry: {
      tags: ['refreshing'],
      after: { refreshRetry: 'refreshing' },
      on: { 'auth.tokenRefreshed': { target: 'active', actions: 'rememberSession' } },
    },
  },
});

/** What `signedIn` and `guest` share: the token's life, the own profile watched, the ways out. */
const authenticated = sessionSetup.createStateConfig({
  ...tokenLife,
  // The person's own profile, live, for the name the views show.
  invoke: {
    id: 'ownProfile',
    src: 'ownProfile',
    input: ({ context }) => ({ userId: context.user?.id ?? '' }),
    // A name is a nicety: without it the views show the email, so a failure ends nothing.
    onError: {},
  },
  on: {
    'session.signOut': 'signingOut',
    'auth.signedOut': { target: 'signedOut', actions: 'noticeSignedOutElsewhere' },
    'profile.changed': { actions: 'rememberName' },
  },
});

/** Where a session fact leads (a sibling of the state that handles it), remembering the session. */
const toGuest = { guard: 'factIsGuest', target: 'guest', actions: 'rememberSession' } as const;
const toMember = { target: 'signedIn', actions: 'rememberSession' } as const;

/** The signed-out form's requests, open from every state that shows the form. */
const formRequests = {
  'session.signIn': 'signingIn',
  'session.signUp': 'signingUp',
  'session.signInAsGuest': 'joiningAsGuest',
} as const;
/** A request the form runs: its own failure is shown; success waits for the fact that follows (`done: {}`). */
const requesting = sessionSetup.createStateConfig({ tags: ['pending'], entry: 'clearMessages' });
const refusal = { target: 'failed', actions: { type: 'showRefusal', params: output } } as const;
const crashed = { target: 'failed', actions: 'showUnexpected' } as const;

export const sessionMachine = sessionSetup.createMachine({
  id: 'session',
  context: { user: null, displayName: null, look: null, expiresAt: null, error: null, notice: null },
  // The stream lives as long as the session actor: facts from other tabs reach every state.
  invoke: { id: 'authEvents', src: 'authEvents' },
  initial: 'restoring',
  states: {
    restoring: {
      tags: ['restoring'],
      on: {
        // supabase-js may report SIGNED_IN while loading a stored session, before INITIAL_SESSION.
        'auth.sessionRestored': [toGuest, { guard: 'factHasSession', ...toMember }, { target: 'signedOut' }],
        'auth.signedIn': [toGuest, toMember],
        // supabase-js drops a stored session whose refresh token no longer works.
        'auth.signedOut': { target: 'signedOut', actions: 'noticeExpired' },
      },
    },
    signedOut: {
      tags: ['signedOut'],
      initial: 'idle',
      on: {
        // Whoever signed in (this form, another tab), the fact decides where we go.
        'auth.signedIn': [toGuest, toMember],
      },
      states: {
        idle: { on: formRequests },
        signingIn: {
          ...requesting,
          invoke: {
            id: 'signIn',
            src: 'signIn',
            input: credentials,
            ...request({ refused: refusal, done: {}, threw: crashed }),
          },
        },
        signingUp: {
          ...requesting,
          invoke: {
            id: 'signUp',
            src: 'signUp',
            input: credentials,
            ...request({
              refused: refusal,
              done: {
                guard: { type: 'confirmationSent', params: output },
                target: 'awaitingConfirmation',
                actions: { type: 'showConfirmationSent', params: output },
              },
              threw: crashed,
            }),
          },
        },
        joiningAsGuest: {
          ...requesting,
          invoke: {
            id: 'signInAsGuest',
            src: 'signInAsGuest',
            ...request({ refused: refusal, done: {}, threw: crashed }),
          },
        },
        failed: { tags: ['failed'], on: formRequests },
        awaitingConfirmation: { tags: ['notice'], on: formRequests },
      },
    },
    signedIn: {
      tags: ['authenticated', 'member'],
      ...authenticated,
      on: {
        ...authenticated.on,
        // Another tab may sign in as someone else (whose profile is watched instead), or a guest may become a member.
        'auth.signedIn': [
          toGuest,
          { guard: 'factIsOtherUser', target: 'signedIn', reenter: true, actions: 'rememberSession' },
          { actions: 'rememberSession' },
        ],
        'auth.userUpdated': [toGuest, { actions: 'rememberSession' }],
      },
    },
    guest: {
      tags: ['authenticated', 'guest'],
      ...authenticated,
      on: {
        ...authenticated.on,
        'auth.signedIn': [
          { guard: not('factIsGuest'), ...toMember },
          { guard: 'factIsOtherUser', target: 'guest', reenter: true, actions: 'rememberSession' },
          { actions: 'rememberSession' },
        ],
        'auth.userUpdated': [{ guard: 'factIsGuest', actions: 'rememberSession' }, toMember],
      },
    },
    signingOut: {
      tags: ['authenticated', 'pending', 'signingOut'],
      invoke: {
        id: 'signOut',
        src: 'signOut',
        // The adapter ends the local session even offline, so every outcome is signed out.
        ...requestValue({
          done: { target: 'signedOut', actions: 'forgetUser' },
          threw: { target: 'signedOut', actions: 'forgetUser' },
        }),
      },
      on: {
        'auth.signedOut': { target: 'signedOut', actions: 'forgetUser' },
      },
    },
  },
});

export type SessionMachine = typeof sessionMachine;

import { createActor, type SnapshotFrom } from 'xstate';
import { sessionMachine, type SessionEvent } from '../../machines/account/session.machine.ts';
import type { AuthEvent, AuthResult, SignUpResult } from '../../src/lib/ports/auth.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
import { fakeAuth, flush, guest, member, named, otherMember, wrongPassword } from './session.fakes.ts';

/**
 * Path tests: traverse the session machine with a finite set of
 * events, then replay every shortest path, and every edge of the graph, against the
 * machine running with the fake adapter, so each state and each transition is exercised
 * through the real actors, not just the pure transition function.
 */

type Snapshot = SnapshotFrom<typeof sessionMachine>;
type GraphEvent =
  | SessionEvent
  | {
      type: `xstate.${'done' | 'error'}.actor.${string}` | `xstate.after.${string}`;
      output?: unknown;
      error?: unknown;
    };

const done = (actor: string, output: AuthResult | SignUpResult | undefined): GraphEvent => ({
  type: `xstate.done.actor.${actor}`,
  output,
});
const crashed = (actor: string): GraphEvent => ({
  type: `xstate.error.actor.${actor}`,
  error: new Error(`${actor} crashed`),
});
const promotedGuest = { ...guest, user: { ...guest.user, email: 'g@example.test', isAnonymous: false } };
const otherGuest = { ...guest, user: { ...guest.user, id: 'u-guest-2' } };

const events: GraphEvent[] = [
  { type: 'auth.sessionRestored', session: null },
  { type: 'auth.sessionRestored', session: member },
  { type: 'auth.sessionRestored', session: guest },
  { type: 'auth.signedIn', session: member },
  { type: 'auth.signedIn', session: otherMember },
  { type: 'auth.signedIn', session: guest },
  { type: 'auth.signedIn', session: otherGuest },
  { type: 'auth.signedOut' },
  { type: 'auth.tokenRefreshed', session: member },
  { type: 'auth.userUpdated', session: promotedGuest },
  { type: 'auth.userUpdated', session: guest },
  { type: 'session.signIn', email: 'ada@example.test', password: 'pw-123456' },
  { type: 'session.signUp', email: 'ada@example.test', password: 'pw-123456' },
  { type: 'session.signInAsGuest' },
  { type: 'session.signOut' },
  done('signIn', { ok: true, session: member }),
  done('signIn', wrongPassword),
  done('signUp', { ok: true, session: member }),
  done('signUp', {
    ok: false,
    error: { code: 'user_already_exists', message: 'An account with this email already exists' },
  }),
  done('signUp', { ok: true, session: null, confirmationSentTo: 'ada@example.test' }),
  done('signInAsGuest', { ok: true, session: guest }),
  done('signInAsGuest', { ok: false, error: { code: 'guest_disabled', message: 'Guest access is turned off' } }),
  done('signOut', undefined),
  crashed('signIn'),
  crashed('signUp'),
  crashed('signInAsGuest'),
  crashed('signOut'),
  // The access token's life: the expiry timer, the refresh's outcomes, the retry timer.
  { type: 'xstate.after.accessTokenExpiry.session.signedIn.active' },
  { type: 'xstate.after.accessTokenExpiry.session.guest.active' },
  { type: 'xstate.after.refreshRetry.session.signedIn.waitingToRetry' },
  { type: 'xstate.after.refreshRetry.session.guest.waitingToRetry' },
  done('refreshSession', { ok: true, session: member }),
  done('refreshSession', {
    ok: false,
    error: { code: 'session_expired', message: 'Your session has expired. Sign in again to continue.' },
  }),
  done('refreshSession', { ok: false, error: { code: 'network', message: "Can't reach the server" } }),
  crashed('refreshSession'),
  // The own profile's stream: names for whoever may be signed in, and its failure.
  named(member.user.id, 'Ada'),
  named(guest.user.id, 'Guest'),
  crashed('ownProfile'),
];

const traversal = {
  events: events as SessionEvent[],
  // Only events the current state handles: the rest would be self-loops that prove nothing.
  filterEvents: (snapshot: Snapshot, event: SessionEvent) => snapshot.can(event),
};

/** Drives a running actor with one graph step: intents are sent, facts emitted, requests settled. */
async function replay(steps: readonly GraphEvent[]) {
  const auth = fakeAuth();
  const actor = createActor(sessionMachine.provide({ actors: auth.actors })).start();
  const take = async (event: GraphEvent) => {
    if (event.type === 'xstate.error.actor.ownProfile')
      return auth.failProfile('error' in event ? event.error : undefined);
    if (event.type === 'profile.changed') return auth.emitProfile(event);
    if (await settleRequest(auth, event)) return;
    if (event.type.startsWith('xstate.after.')) {
      // A delayed transition's own event: what the scheduler would deliver when the time comes.
      actor.send(event as SessionEvent);
      await flush();
    } else if (event.type.startsWith('auth.')) auth.emit(event as AuthEvent);
    else actor.send(event as SessionEvent);
  };
  for (const event of steps) await take(event);
  return actor;
}

describeMachinePaths('session machine', {
  machine: sessionMachine,
  traversal,
  replay,
  observe: (snapshot) => ({ value: snapshot.value, context: snapshot.context }),
  minEdges: 40,
});

import { Subject } from 'rxjs';
import { vi } from 'vitest';
import { fromEventObservable } from 'xstate';
import type { AuthEvent, AuthResult, AuthSession, Credentials, SignUpResult } from '../../src/lib/ports/auth.ts';
import type { OwnProfileFact } from '../../src/lib/ports/profile.ts';
import { heldRequests } from './held-requests.ts';

/** Requests the fake adapter holds open until the test settles them. */
type RequestName = 'signIn' | 'signUp' | 'signInAsGuest' | 'signOut' | 'refreshSession';

/**
 * A fake auth adapter whose facts and request outcomes the test controls: `emit` pushes a
 * fact into the stream, `settle`/`fail` finish the request the machine is waiting on.
 */
export function fakeAuth() {
  const facts = new Subject<AuthEvent>();
  const profiles = new Subject<OwnProfileFact>();
  /** Whose profile each watch the machine started was for, in order. */
  const watched: string[] = [];
  const { request, calls, isOpen, settle, fail } = heldRequests<RequestName>(flush);
  return {
    actors: {
      authEvents: fromEventObservable<AuthEvent, void>(() => facts),
      signIn: request<AuthResult, Credentials>('signIn'),
      signUp: request<SignUpResult, Credentials>('signUp'),
      signInAsGuest: request<AuthResult, void>('signInAsGuest'),
      signOut: request<void, void>('signOut'),
      refreshSession: request<AuthResult, void>('refreshSession'),
      ownProfile: fromEventObservable<OwnProfileFact, { userId: string }>(({ input }) => {
        watched.push(input.userId);
        return profiles;
      }),
    },
    watched,
    /** A profile fact on the live own-profile stream (reaches the machine only while it watches). */
    emitProfile: (fact: OwnProfileFact) => profiles.next(fact),
    /** Ends the own-profile stream with an error (every later watch of this fake fails at once too). */
    failProfile: (error: unknown) => profiles.error(error),
    calls,
    isOpen,
    emit: (fact: AuthEvent) => facts.next(fact),
    /** Resolves the open request and lets the promise callbacks run. */
    settle,
    fail,
  };
}

export async function flush(): Promise<void> {
  // Under fake timers a real setTimeout would never fire; advancing by zero runs the same callbacks.
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  else await new Promise((resolve) => setTimeout(resolve, 0));
}

export const member: AuthSession = {
  user: { id: 'u-ada', email: 'ada@example.test', isAnonymous: false },
  expiresAt: 2_000_000_000,
};
export const otherMember: AuthSession = {
  user: { id: 'u-bob', email: 'bob@example.test', isAnonymous: false },
  expiresAt: 2_000_000_000,
};
export const guest: AuthSession = { user: { id: 'u-guest', email: null, isAnonymous: true }, expiresAt: 2_000_000_000 };
export const wrongPassword: AuthResult = {
  ok: false,
  error: { code: 'invalid_credentials', message: 'Wrong email or password' },
};

/** A `profile.changed` fact for a user, as the profile adapter's watch reports it. */
export const named = (userId: string, displayName: string): OwnProfileFact => ({
  type: 'profile.changed',
  profile: { id: userId, displayName, color: '#0090ff', avatarPath: null, avatarUrl: null },
});

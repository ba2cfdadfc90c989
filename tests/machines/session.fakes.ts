import { Subject } from 'rxjs';
import { vi } from 'vitest';
import { fromEventObservable } from 'xstate';
import type { AuthEvent, AuthResult, AuthSession, Credentials, SignUpResult } from '../../src/lib/ports/auth.ts';
import { heldRequests } from './held-requests.ts';

/** Requests the fake adapter holds open until the test settles them. */
type RequestName = 'signIn' | 'signUp' | 'signInAsGuest' | 'signOut' | 'refreshSession';


/**
 * A fake auth adapter whose facts and request outcomes the test controls: `emit` pushes a
 * fact into the stream, `settle`/`fail` finish the request the machine is waiting on.
 */
export function fakeAuth() {
  const facts = new Subject<AuthEvent>();
  const { request, take, calls, pending } = heldRequests<RequestName>();
  return {
    actors: {
      authEvents: fromEventObservable<AuthEvent, void>(() => facts),
      signIn: request<AuthResult, Credentials>('signIn'),
      signUp: request<SignUpResult, Credentials>('signUp'),
      signInAsGuest: request<AuthResult, void>('signInAsGuest'),
      signOut: request<void, void>('signOut'),
      refreshSession: request<AuthResult, void>('refreshSession'),
    },
    calls,
    isOpen: (name: RequestName) => pending.has(name),
    emit: (fact: AuthEvent) => facts.next(fact),
    /** Resolves the open request and lets the promise callbacks run. */
    async settle(name: RequestName, output: unknown) {
      take(name).resolve(output);
      await flush();
    },
    async fail(name: RequestName, error: unknown) {
      take(name).reject(error);
      await flush();
    },
  };
}

export async function flush(): Promise<void> {
  // Under fake timers a real setTimeout would never fire; advancing by zero runs the same callbacks.
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  else await new Promise((resolve) => setTimeout(resolve, 0));
}

export const member: AuthSession = { user: { id: 'u-ada', email: 'ada@example.test', isAnonymous: false }, expiresAt: 2_000_000_000 };
export const otherMember: AuthSession = { user: { id: 'u-bob', email: 'bob@example.test', isAnonymous: false }, expiresAt: 2_000_000_000 };
export const guest: AuthSession = { user: { id: 'u-guest', email: null, isAnonymous: true }, expiresAt: 2_000_000_000 };
export const wrongPassword: AuthResult = { ok: false, error: { code: 'invalid_credentials', message: 'Wrong email or password' } };

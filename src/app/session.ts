import { fromEventObservable, fromPromise } from 'xstate';
import { sessionMachine } from '../../machines/session.machine.ts';
import type { AuthEvent, AuthPort, AuthResult, Credentials, SignUpResult } from '../lib/ports/auth.ts';

/** The session machine wired to an auth port: the stream becomes its facts, calls its requests. */
export function sessionLogic(port: AuthPort) {
  return sessionMachine.provide({
    actors: {
      authEvents: fromEventObservable<AuthEvent, void>(() => port.authEvents$),
      signIn: fromPromise<AuthResult, Credentials>(({ input }) => port.signIn(input)),
      signUp: fromPromise<SignUpResult, Credentials>(({ input }) => port.signUp(input)),
      signInAsGuest: fromPromise<AuthResult, void>(() => port.signInAnonymously()),
      signOut: fromPromise<void, void>(() => port.signOut()),
      refreshSession: fromPromise<AuthResult, void>(() => port.refreshSession()),
    },
  });
}

import { fromEventObservable, fromPromise } from 'xstate';
import { sessionMachine } from '../../machines/account/session.machine.ts';
import type { AuthEvent, AuthPort, AuthResult, Credentials, SignUpResult } from '../lib/ports/auth.ts';
import type { OwnProfileFact, ProfilePort } from '../lib/ports/profile.ts';

/**
 * The session machine wired to an auth port (the stream becomes its facts, calls its
 * requests) and to the profile port, whose live own profile gives the display name.
 */
export function sessionLogic(port: AuthPort, profile: Pick<ProfilePort, 'watch'>) {
  return sessionMachine.provide({
    actors: {
      authEvents: fromEventObservable<AuthEvent, void>(() => port.authEvents$),
      signIn: fromPromise<AuthResult, Credentials>(({ input }) => port.signIn(input)),
      signUp: fromPromise<SignUpResult, Credentials>(({ input }) => port.signUp(input)),
      signInAsGuest: fromPromise<AuthResult, void>(() => port.signInAnonymously()),
      signOut: fromPromise<void, void>(() => port.signOut()),
      refreshSession: fromPromise<AuthResult, void>(() => port.refreshSession()),
      ownProfile: fromEventObservable<OwnProfileFact, { userId: string }>(({ input }) => profile.watch(input.userId)),
    },
  });
}

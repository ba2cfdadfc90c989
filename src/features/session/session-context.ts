import { createActorContext } from '@xstate/react';
import { useCallback } from 'react';
import { sessionMachine, type SessionIntent } from '../../../machines/account/session.machine.ts';
import type { SessionUser } from '../../lib/ports/auth.ts';

/**
 * The session actor for the React tree. The composition root passes the machine with real
 * adapters as `logic`; views read it only through the named hooks below, one slice each.
 */
export const SessionContext = createActorContext(sessionMachine);

export type SessionStatus = 'restoring' | 'signedOut' | 'pending' | 'signedIn' | 'guest' | 'signingOut';

/** The mode the UI is in, from the machine's tags. */
export function useSessionStatus(): SessionStatus {
  return SessionContext.useSelector((state): SessionStatus => {
    if (state.hasTag('signingOut')) return 'signingOut';
    if (state.hasTag('restoring')) return 'restoring';
    if (state.hasTag('pending')) return 'pending';
    if (state.hasTag('guest')) return 'guest';
    if (state.hasTag('member')) return 'signedIn';
    return 'signedOut';
  });
}

/** Which request the signed-out form is waiting on, if any, to label that button. */
export type PendingRequest = 'signIn' | 'signUp' | 'guest' | null;

export function usePendingRequest(): PendingRequest {
  return SessionContext.useSelector((state): PendingRequest => {
    if (state.matches({ signedOut: 'signingIn' })) return 'signIn';
    if (state.matches({ signedOut: 'signingUp' })) return 'signUp';
    if (state.matches({ signedOut: 'joiningAsGuest' })) return 'guest';
    return null;
  });
}

export function useSessionError(): string | null {
  return SessionContext.useSelector((state) => state.context.error);
}

export function useSessionNotice(): string | null {
  return SessionContext.useSelector((state) => state.context.notice);
}

const sameUser = (a: SessionUser | null, b: SessionUser | null): boolean =>
  a === b || (a !== null && b !== null && a.id === b.id && a.email === b.email && a.isAnonymous === b.isAnonymous);

export function useCurrentUser(): SessionUser | null {
  return SessionContext.useSelector((state) => state.context.user, sameUser);
}

/** The signed-in person's profile name, or null until their profile has been read. */
export function useDisplayName(): string | null {
  return SessionContext.useSelector((state) => state.context.displayName);
}

/** The signed-in person's colour and avatar image, or null until their profile has been read. */
export function useOwnLook(): { color: string; avatarUrl: string | null } | null {
  return SessionContext.useSelector(
    (state) => state.context.look,
    (a, b) => a === b || (a !== null && b !== null && a.color === b.color && a.avatarUrl === b.avatarUrl),
  );
}

export function useCanSignOut(): boolean {
  return SessionContext.useSelector((state) => state.can({ type: 'session.signOut' }));
}

/** Views only send intents. */
export function useSessionSend(): (intent: SessionIntent) => void {
  const actor = SessionContext.useActorRef();
  return useCallback((intent: SessionIntent) => actor.send(intent), [actor]);
}

import type { AuthChangeEvent, Session, SupabaseClient } from '@supabase/supabase-js';

/** The adapter needs only the auth half of a client. */
type AuthClient = Pick<SupabaseClient, 'auth'>;
import { Observable } from 'rxjs';
import type { AuthEvent, AuthPort, AuthResult, AuthSession, Credentials, SignUpResult } from '../../lib/ports/auth.ts';
import { describeAuthError } from './auth-errors.ts';
import { deferred } from './realtime.ts';

/** The plain session the rest of the app sees; Supabase's types stop here. */
export function toAuthSession(session: Session): AuthSession {
  const { user } = session;
  return {
    // GoTrue gives anonymous users an empty email; the app models "no email" as null.
    user: { id: user.id, email: user.email ? user.email : null, isAnonymous: user.is_anonymous === true },
    expiresAt: session.expires_at ?? null,
  };
}

/** One supabase-js auth change as a domain fact, or null for changes the app ignores. */
export function toAuthEvent(change: AuthChangeEvent, session: Session | null): AuthEvent | null {
  switch (change) {
    case 'INITIAL_SESSION':
      return { type: 'auth.sessionRestored', session: session ? toAuthSession(session) : null };
    case 'SIGNED_IN':
      return session ? { type: 'auth.signedIn', session: toAuthSession(session) } : null;
    case 'SIGNED_OUT':
      return { type: 'auth.signedOut' };
    case 'TOKEN_REFRESHED':
      return session ? { type: 'auth.tokenRefreshed', session: toAuthSession(session) } : null;
    case 'USER_UPDATED':
      return session ? { type: 'auth.userUpdated', session: toAuthSession(session) } : null;
    default:
      // PASSWORD_RECOVERY and MFA_CHALLENGE_VERIFIED have no flow in the app yet.
      return null;
  }
}

/**
 * Auth facts as a cold stream: each subscriber registers its own listener and so gets its
 * own INITIAL_SESSION first. Delivery is moved off supabase-js's callback stack because
 * the client holds its auth lock while notifying, and a subscriber that reacts by calling
 * the client again from inside the callback would wait on that lock forever.
 */
export function authEvents(client: AuthClient): Observable<AuthEvent> {
  return new Observable<AuthEvent>((subscriber) => {
    const { data } = client.auth.onAuthStateChange((change, session) => {
      const event = toAuthEvent(change, session);
      if (event) subscriber.next(event);
    });
    return () => data.subscription.unsubscribe();
  }).pipe(deferred);
}

const EXPIRED_CODES = new Set([
  'refresh_token_not_found',
  'refresh_token_already_used',
  'session_not_found',
  'session_expired',
  'bad_jwt',
]);
export const SESSION_EXPIRED = 'Your session has expired. Sign in again to continue.';

async function attempt<T extends AuthResult | SignUpResult>(request: () => Promise<T>): Promise<T | AuthResult> {
  try {
    return await request();
  } catch (error) {
    // supabase-js returns most errors, but a failing fetch or storage can still throw.
    return { ok: false, error: describeAuthError(error) };
  }
}

export function createAuthAdapter(client: AuthClient): AuthPort {
  return {
    authEvents$: authEvents(client),

    signIn: ({ email, password }: Credentials) =>
      attempt(async () => {
        const { data, error } = await client.auth.signInWithPassword({ email, password });
        if (error) return { ok: false, error: describeAuthError(error) };
        return { ok: true, session: toAuthSession(data.session) };
      }),

    signUp: ({ email, password }: Credentials) =>
      attempt<SignUpResult>(async () => {
        const { data, error } = await client.auth.signUp({ email, password });
        if (error) return { ok: false, error: describeAuthError(error) };
        if (data.session) return { ok: true, session: toAuthSession(data.session) };
        // Projects that confirm emails answer with a user and no session.
        return { ok: true, session: null, confirmationSentTo: data.user?.email ?? email };
      }),

    signInAnonymously: () =>
      attempt(async () => {
        const { data, error } = await client.auth.signInAnonymously();
        if (error || !data.session) return { ok: false, error: describeAuthError(error) };
        return { ok: true, session: toAuthSession(data.session) };
      }),

    refreshSession: () =>
      attempt(async () => {
        const { data, error } = await client.auth.refreshSession();
        if (error) {
          // Codes GoTrue answers for a refresh token that will never work again.
          const code = (error as { code?: string }).code ?? '';
          if (EXPIRED_CODES.has(code) || error.name === 'AuthSessionMissingError') {
            return { ok: false, error: { code: 'session_expired', message: SESSION_EXPIRED } };
          }
          return { ok: false, error: describeAuthError(error) };
        }
        if (!data.session) return { ok: false, error: { code: 'session_expired', message: SESSION_EXPIRED } };
        return { ok: true, session: toAuthSession(data.session) };
      }),

    async signOut() {
      // Revoke every session of the user; if the server can't be told, still end this one.
      const global = await client.auth.signOut().catch((error: unknown) => ({ error }));
      if (global.error) await client.auth.signOut({ scope: 'local' }).catch(() => undefined);
    },
  };
}

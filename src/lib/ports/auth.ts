import type { Observable } from 'rxjs';

/**
 * The auth port: what the session machine needs from an identity provider, in plain
 * data. The Supabase adapter implements it; tests implement it with fakes. Nothing here
 * mentions Supabase, so its types never leak into machines or views.
 */

export interface SessionUser {
  id: string;
  /** Null for guests (anonymous users). */
  email: string | null;
  isAnonymous: boolean;
}

export interface AuthSession {
  user: SessionUser;
  /** Access token expiry, seconds since the epoch, when known. */
  expiresAt: number | null;
}

/** Facts the identity provider reports, past tense, named `auth.<verb>`. */
export type AuthEvent =
  | { type: 'auth.sessionRestored'; session: AuthSession | null }
  | { type: 'auth.signedIn'; session: AuthSession }
  | { type: 'auth.signedOut' }
  | { type: 'auth.tokenRefreshed'; session: AuthSession }
  | { type: 'auth.userUpdated'; session: AuthSession };

export interface Credentials {
  email: string;
  password: string;
}

/** Why a request failed: a stable code for logic and a sentence for people. */
export type AuthFailureCode =
  | 'invalid_credentials'
  | 'user_already_exists'
  | 'weak_password'
  | 'invalid_email'
  | 'rate_limited'
  | 'email_not_confirmed'
  | 'signup_disabled'
  | 'guest_disabled'
  /** The refresh token is gone (expired, revoked, or signed out everywhere): sign in again. */
  | 'session_expired'
  | 'network'
  | 'unknown';

export interface AuthFailure {
  code: AuthFailureCode;
  message: string;
}

export type AuthResult = { ok: true; session: AuthSession } | { ok: false; error: AuthFailure };

/** Sign-up may need the email confirmed before a session exists. */
export type SignUpResult = AuthResult | { ok: true; session: null; confirmationSentTo: string };

export interface AuthPort {
  /** Every auth fact, starting with `auth.sessionRestored` for each new subscriber. */
  authEvents$: Observable<AuthEvent>;
  signUp(credentials: Credentials): Promise<SignUpResult>;
  signIn(credentials: Credentials): Promise<AuthResult>;
  signInAnonymously(): Promise<AuthResult>;
  /** Ends the session on this device even when the server cannot be reached. */
  signOut(): Promise<void>;
  /** Trades the refresh token for a new access token now; `session_expired` when it is no longer valid. */
  refreshSession(): Promise<AuthResult>;
}

import type { Call } from './call.ts';
import { AuthError, forbidden } from './errors.ts';
import { sessionExists } from './sessions.ts';
import { isBanned, loadUser, type LoadedUser } from './users.ts';

export interface Caller {
  user: LoadedUser;
  /** Null for tokens without a session_id claim (minted outside this server). */
  sessionId: string | null;
  aud: unknown;
  isAnonymous: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export const isUuid = (value: string) => UUID.test(value);

/**
 * GoTrue only takes the user's token from `Authorization: Bearer`; the apikey header
 * never authenticates a user. A token the gateway could not verify is GoTrue's 403 bad_jwt.
 */
function requireBearer(call: Call): void {
  const value = call.ctx.headers.authorization;
  if (!value || !/^[Bb]earer \S+$/.test(value.trim())) {
    throw new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
  }
  if (call.ctx.authError) throw forbidden('bad_jwt', call.ctx.authError.message);
}

/** Checks the session a token names still exists: a logged-out token is dead at once. */
async function checkSession(call: Call): Promise<string | null> {
  const sid = call.ctx.claims.session_id;
  if (sid === undefined || sid === null || sid === '' || sid === NIL_UUID) return null;
  if (typeof sid !== 'string' || !isUuid(sid))
    throw forbidden('bad_jwt', 'invalid claim: session_id claim must be a UUID');
  if (!(await sessionExists(call.pool, sid))) {
    throw forbidden('session_not_found', 'Session from session_id claim in JWT does not exist');
  }
  return sid;
}

/** GoTrue's requireAuthentication: a valid user token whose user and session still exist. */
export async function requireUser(call: Call): Promise<Caller> {
  requireBearer(call);
  const { sub } = call.ctx.claims;
  if (typeof sub !== 'string' || sub === '') throw forbidden('bad_jwt', 'invalid claim: missing sub claim');
  if (!isUuid(sub)) throw new AuthError(400, 'bad_jwt', 'invalid claim: sub claim must be a UUID');
  const user = await loadUser(call.pool, sub);
  if (!user) throw forbidden('user_not_found', 'User from sub claim in JWT does not exist');
  const sessionId = await checkSession(call);
  if (isBanned(user.row, call.options.now())) throw forbidden('user_banned', 'User is banned');
  return { user, sessionId, aud: call.ctx.claims.aud, isAnonymous: user.row.is_anonymous };
}

/** GoTrue's requireAdminCredentials: a verified token whose role is an admin role. */
export async function requireAdmin(call: Call): Promise<void> {
  requireBearer(call);
  // A user token stays refused after logout even for admin routes.
  await checkSession(call);
  const role = call.ctx.claims.role;
  if (role !== 'service_role' && role !== 'supabase_admin') throw forbidden('not_admin', 'User not allowed');
}

import { asAdmin } from '../postgres/pool.ts';
import { body, clientInfo, clock, ok, type Call, type Reply } from './call.ts';
import { verifyPassword } from './credentials.ts';
import { idTokenGrant, web3Grant } from './disabled.ts';
import { AuthError, badRequest, validationFailed } from './errors.ts';
import { refreshGrant } from './refresh.ts';
import { stringField } from './request.ts';
import { amrOf, openSession, sessionJson } from './sessions.ts';
import { findUserByEmail, hasPassword, isBanned, loadUser } from './users.ts';

const INVALID_LOGIN = 'Invalid login credentials';

/** POST /token?grant_type=password|refresh_token. GoTrue reads the grant from the query. */
export async function token(call: Call): Promise<Reply> {
  const grantType = call.ctx.url.searchParams.get('grant_type') ?? '';
  if (grantType === 'password') return passwordGrant(call);
  if (grantType === 'refresh_token') {
    const params = await body(call);
    return ok(
      await refreshGrant(
        {
          pool: call.pool,
          signer: call.signer,
          now: call.options.now,
          reuseIntervalMs: call.options.refreshReuseIntervalMs,
        },
        stringField(params, 'refresh_token'),
      ),
    );
  }
  if (grantType === 'id_token') return idTokenGrant(call);
  if (grantType === 'web3') return web3Grant();
  // GoTrue answers an unknown grant with this code and message, oddly but consistently.
  throw badRequest('invalid_credentials', 'unsupported_grant_type');
}

async function passwordGrant(call: Call): Promise<Reply> {
  const params = await body(call);
  const email = stringField(params, 'email');
  const phone = stringField(params, 'phone');
  const password = stringField(params, 'password');
  if (email !== '' && phone !== '')
    throw validationFailed('Only an email address or phone number should be provided on login.');
  if (email === '' && phone === '') throw validationFailed('missing email or phone');
  if (phone !== '') throw new AuthError(422, 'phone_provider_disabled', 'Phone logins are disabled');

  const ip = call.ctx.ip;
  if (call.limiter.blocked(email, ip))
    throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached');

  const found = await findUserByEmail(call.pool, email);
  const fail = (): never => {
    call.limiter.failed(email, ip);
    throw badRequest('invalid_credentials', INVALID_LOGIN);
  };
  if (!found || !hasPassword(found)) {
    await verifyPassword(password, null);
    return fail();
  }
  if (isBanned(found, call.options.now())) throw badRequest('user_banned', 'User is banned');
  if (!(await verifyPassword(password, found.encrypted_password))) return fail();
  if (!found.email_confirmed_at) throw badRequest('email_not_confirmed', 'Email not confirmed');
  call.limiter.succeeded(email, ip);

  const { nowMs, now } = clock(call);
  return asAdmin(call.pool, async (db) => {
    const { sessionId, refreshToken } = await openSession(db, found.id, 'password', clientInfo(call), now);
    const user = await loadUser(db, found.id);
    // Only reachable if the user vanished mid-request; answer as for any unknown login.
    if (!user) throw badRequest('invalid_credentials', INVALID_LOGIN);
    return ok(sessionJson(call.signer, user, sessionId, refreshToken, await amrOf(db, sessionId), nowMs));
  });
}

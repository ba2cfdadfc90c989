import { randomUUID } from 'node:crypto';
import { asAdmin } from '../postgres/pool.ts';
import { body, clientInfo, clock, ok, type Call, type Reply } from './call.ts';
import { checkPasswordStrength, hashPassword, validateEmail } from './credentials.ts';
import { checkSignupAllowed } from './email-flows.ts';
import { badRequest, unprocessable, validationFailed } from './errors.ts';
import { referrer, sendConfirmation } from './mailer.ts';
import { objectField, stringField, type JsonObject } from './request.ts';
import { amrOf, openSession, sessionJson } from './sessions.ts';
import { findUserByEmail, insertUser, loadUser, upsertEmailIdentity, userJson } from './users.ts';

const EMAIL_APP_METADATA = { provider: 'email', providers: ['email'] };

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/**
 * POST /signup. No email and no phone means an anonymous sign-in (GoTrue routes it the
 * same way). An email sign-up is confirmed at once when autoConfirm is on and answers
 * with a session; otherwise it answers with the unconfirmed user and no session.
 */
export async function signup(call: Call): Promise<Reply> {
  checkSignupAllowed(call);
  const params = await body(call);
  const email = stringField(params, 'email');
  const phone = stringField(params, 'phone');
  const password = stringField(params, 'password');
  const data = objectField(params, 'data') ?? {};
  if (email === '' && phone === '') return anonymousSignIn(call, data);

  if (password === '') throw validationFailed('Signup requires a valid password');
  checkPasswordStrength(password);
  if (email !== '' && phone !== '') {
    throw validationFailed('Only an email address or phone number should be provided on signup.');
  }
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Phone signups are disabled');
  const address = validateEmail(email);
  const { autoConfirm } = call.options;

  const existing = await findUserByEmail(call.pool, address);
  if (existing) return repeatedSignup(call, address, data);

  // Hash before the transaction: bcrypt is slow and must not hold a connection.
  const hash = await hashPassword(password, call.options.bcryptCost);
  const { nowMs, now } = clock(call);
  try {
    return await asAdmin(call.pool, async (db) => {
      const userId = await insertUser(
        db,
        {
          email: address,
          passwordHash: hash,
          appMetadata: EMAIL_APP_METADATA,
          userMetadata: data,
          confirmed: autoConfirm,
          isAnonymous: false,
        },
        now,
      );
      await upsertEmailIdentity(db, userId, address, false, data, now);
      if (!autoConfirm) {
        // A fresh row: its confirmation_sent_at is the insert's, not an earlier mail's.
        const fresh = { ...(await loadUser(db, userId))!.row, confirmation_sent_at: null };
        await sendConfirmation(db, call, fresh, 'signup', referrer(call));
        return ok(userJson((await loadUser(db, userId))!));
      }
      const { sessionId, refreshToken } = await openSession(db, userId, 'password', clientInfo(call), now);
      const user = (await loadUser(db, userId))!;
      return ok(sessionJson(call.signer, user, sessionId, refreshToken, await amrOf(db, sessionId), nowMs));
    });
  } catch (error) {
    // Two sign-ups for one address raced; the loser gets what it would have got a moment later.
    if (isUniqueViolation(error)) return repeatedSignup(call, address, data);
    throw error;
  }
}

/**
 * A sign-up for a registered address. With autoConfirm GoTrue says so (422
 * user_already_exists); without it, it answers with a decoy user so the response does not
 * reveal who is registered.
 */
function repeatedSignup(call: Call, email: string, data: JsonObject): Reply {
  if (call.options.autoConfirm) throw unprocessable('user_already_exists', 'User already registered');
  const now = new Date(call.options.now()).toISOString();
  return ok({
    id: randomUUID(),
    aud: 'authenticated',
    role: '',
    email,
    phone: '',
    confirmation_sent_at: now,
    app_metadata: EMAIL_APP_METADATA,
    user_metadata: data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  });
}

async function anonymousSignIn(call: Call, data: JsonObject): Promise<Reply> {
  if (!call.options.anonymousSignIns)
    throw unprocessable('anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
  const { nowMs, now } = clock(call);
  return asAdmin(call.pool, async (db) => {
    const userId = await insertUser(
      db,
      { email: null, passwordHash: null, appMetadata: {}, userMetadata: data, confirmed: false, isAnonymous: true },
      now,
    );
    const { sessionId, refreshToken } = await openSession(db, userId, 'anonymous', clientInfo(call), now);
    const user = (await loadUser(db, userId))!;
    return ok(sessionJson(call.signer, user, sessionId, refreshToken, await amrOf(db, sessionId), nowMs));
  });
}

import { asAdmin } from '../postgres/pool.ts';
import { body, clock, ok, type Call, type Reply } from './call.ts';
import { checkPasswordStrength, hashPassword, validateEmail, verifyPassword } from './credentials.ts';
import { badRequest, forbidden, unprocessable, validationFailed } from './errors.ts';
import { referrer, sendEmailChange, tokenHash } from './mailer.ts';
import { requireUser, type Caller } from './guard.ts';
import { objectField, optionalStringField, stringField } from './request.ts';
import {
  findUserByEmail,
  hasPassword,
  loadUser,
  mergeMetadata,
  upsertEmailIdentity,
  userJson,
  type Db,
} from './users.ts';

/** GET /user: the caller's user object, fresh from the database. */
export async function getUser(call: Call): Promise<Reply> {
  const caller = await requireUser(call);
  // GoTrue compares the token's first audience with the request's (always "authenticated" here).
  const aud: unknown = Array.isArray(caller.aud) ? (caller.aud as unknown[])[0] : caller.aud;
  if (aud !== 'authenticated') {
    throw validationFailed("Token audience doesn't match request audience");
  }
  return ok(userJson(caller.user));
}

/**
 * PUT /user: email, password and user metadata (`data`). A new password signs out every
 * other session; a new email takes effect at once when sign-ups are auto-confirmed (there
 * is no mailer), else it waits in email_change as GoTrue's pending change does.
 */
export async function updateUser(call: Call): Promise<Reply> {
  // Authentication first, as GoTrue's middleware does: an anonymous caller learns nothing about the body.
  const caller = await requireUser(call);
  const params = await body(call);
  const { row } = caller.user;
  const rawEmail = stringField(params, 'email');
  const email = rawEmail === '' ? '' : validateEmail(rawEmail);
  const password = optionalStringField(params, 'password');
  const nonce = stringField(params, 'nonce');
  const data = objectField(params, 'data');
  if (objectField(params, 'app_metadata') !== undefined) {
    throw forbidden('not_admin', 'Updating app_metadata requires admin privileges');
  }
  if (password !== undefined) checkPasswordStrength(password);
  if (row.is_anonymous && password && email === '' && !row.email) {
    throw unprocessable(
      'validation_failed',
      'Updating password of an anonymous user without an email or phone is not allowed',
    );
  }
  const changingEmail = email !== '' && email !== row.email;
  if (changingEmail) {
    const other = await findUserByEmail(call.pool, email);
    if (other && other.id !== row.id)
      throw unprocessable('email_exists', 'A user with this email address has already been registered');
  }
  if (password !== undefined) await checkReauthentication(call, caller, nonce);
  let hash: string | null = null;
  if (password) {
    if (hasPassword(row) && (await verifyPassword(password, row.encrypted_password))) {
      throw unprocessable('same_password', 'New password should be different from the old password.');
    }
    hash = await hashPassword(password, call.options.bcryptCost);
  }

  const { now } = clock(call);
  const updated = await asAdmin(call.pool, async (db) => {
    const current = await loadUser(db, row.id);
    if (!current) throw forbidden('user_not_found', 'User from sub claim in JWT does not exist');
    if (hash !== null) {
      await db.query(`update auth.users set encrypted_password = $2, updated_at = $3 where id = $1`, [
        row.id,
        hash,
        now,
      ]);
      // A password change ends every other session, as GoTrue's UpdatePassword does.
      await db.query(`delete from auth.sessions where user_id = $1 and ($2::uuid is null or id <> $2::uuid)`, [
        row.id,
        caller.sessionId,
      ]);
    }
    if (data !== undefined) {
      await db.query(`update auth.users set raw_user_meta_data = $2, updated_at = $3 where id = $1`, [
        row.id,
        JSON.stringify(mergeMetadata(current.row.raw_user_meta_data, data)),
        now,
      ]);
    }
    if (changingEmail) {
      // GoTrue confirms at once only an anonymous user's first address under autoconfirm; any
      // other change is mailed and waits for /verify (both addresses with secure email change).
      if (current.row.is_anonymous && call.options.autoConfirm) {
        await changeEmail(db, call, current.row.id, email, true, now);
      } else await sendEmailChange(db, call, current.row, email, referrer(call));
    }
    if (password !== undefined && nonce !== '') {
      await db.query(`update auth.users set reauthentication_token = '' where id = $1`, [row.id]);
    }
    return (await loadUser(db, row.id))!;
  });
  return ok(userJson(updated));
}

/**
 * GoTrue's `secure_password_change`: a session older than 24 h (or none) needs the nonce
 * /reauthenticate mailed; a nonce sent anyway is always checked.
 */
async function checkReauthentication(call: Call, caller: Caller, nonce: string): Promise<void> {
  const nowMs = call.options.now();
  let fresh = false;
  if (caller.sessionId) {
    const result = await call.pool.query<{ created: string }>(
      `select extract(epoch from created_at)::text as created from auth.sessions where id = $1`,
      [caller.sessionId],
    );
    const created = Number(result.rows[0]?.created ?? 0) * 1000;
    fresh = nowMs < created + 24 * 3600 * 1000;
  }
  if (!call.options.securePasswordChange || fresh) return;
  if (nonce === '') throw badRequest('reauthentication_needed', 'Password update requires reauthentication');
  const result = await call.pool.query<{ token: string | null; sent: string | null }>(
    `select reauthentication_token as token, extract(epoch from reauthentication_sent_at)::text as sent
       from auth.users where id = $1`,
    [caller.user.row.id],
  );
  const stored = result.rows[0];
  const invalid = () => unprocessable('reauthentication_not_valid', 'Nonce has expired or is invalid');
  if (!stored?.token || !stored.sent) throw invalid();
  const expired = nowMs > Number(stored.sent) * 1000 + call.options.otpExpiryMs;
  if (expired || stored.token !== tokenHash(caller.user.row.email ?? '', nonce)) throw invalid();
}

async function changeEmail(
  db: Db,
  call: Call,
  userId: string,
  email: string,
  wasAnonymous: boolean,
  now: string,
): Promise<void> {
  // Confirmed at once: the address becomes the user's email, and an anonymous user becomes
  // a permanent email user (GoTrue's anonymous-to-permanent conversion).
  await db.query(
    `update auth.users
        set email = $2, email_confirmed_at = coalesce(email_confirmed_at, $3), email_change = '', email_change_sent_at = null,
            is_anonymous = false,
            raw_app_meta_data = case when $4 then coalesce(raw_app_meta_data, '{}'::jsonb) || $5::jsonb else raw_app_meta_data end,
            updated_at = $3
      where id = $1`,
    [userId, email, now, wasAnonymous, JSON.stringify({ provider: 'email', providers: ['email'] })],
  );
  await upsertEmailIdentity(db, userId, email, true, {}, now);
}

/** POST /logout?scope=global|local|others: ends sessions; 204 either way. */
export async function logout(call: Call): Promise<Reply> {
  const scope = call.ctx.url.searchParams.get('scope') ?? '';
  if (!['', 'global', 'local', 'others'].includes(scope)) throw validationFailed(`Unsupported logout scope "${scope}"`);
  const caller = await requireUser(call);
  const userId = caller.user.row.id;
  await asAdmin(call.pool, async (db) => {
    if (caller.sessionId && scope === 'local') {
      await db.query(`delete from auth.sessions where id = $1`, [caller.sessionId]);
    } else if (caller.sessionId && scope === 'others') {
      await db.query(`delete from auth.sessions where user_id = $1 and id <> $2`, [userId, caller.sessionId]);
    } else {
      await db.query(`delete from auth.sessions where user_id = $1`, [userId]);
    }
  });
  return { status: 204 };
}

import { asAdmin } from '../postgres/pool.ts';
import { body, clock, ok, type Call, type Reply } from './call.ts';
import { checkPasswordStrength, hashPassword, validateEmail } from './credentials.ts';
import { AuthError, unprocessable, validationFailed } from './errors.ts';
import { requireAdmin } from './guard.ts';
import { actionLink, newOtp, referrer, sendConfirmation, tokenHash } from './mailer.ts';
import { objectField, stringField, type JsonObject } from './request.ts';
import {
  findUserByEmail,
  insertUser,
  loadUser,
  upsertEmailIdentity,
  userJson,
  type Db,
  type UserRow,
} from './users.ts';

/** The admin mail API: POST /invite (mails an invite) and POST /admin/generate_link (returns the link, mails nothing). */

const EMAIL_EXISTS = 'A user with this email address has already been registered';
const EMAIL_APP_METADATA = { provider: 'email', providers: ['email'] };
const LINK_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change_current', 'email_change_new'];

async function newEmailUser(
  db: Db,
  call: Call,
  email: string,
  passwordHash: string | null,
  data: JsonObject,
): Promise<UserRow> {
  const { now } = clock(call);
  const id = await insertUser(
    db,
    { email, passwordHash, appMetadata: EMAIL_APP_METADATA, userMetadata: data, confirmed: false, isAnonymous: false },
    now,
  );
  await upsertEmailIdentity(db, id, email, false, data, now);
  return (await loadUser(db, id))!.row;
}

/** POST /invite {email, data}: creates the user when new and mails the invite link. */
export async function invite(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const params = await body(call);
  const email = validateEmail(stringField(params, 'email'));
  const data = objectField(params, 'data') ?? {};
  const redirectTo = referrer(call);
  const user = await asAdmin(call.pool, async (db) => {
    let row = await findUserByEmail(db, email);
    if (row?.email_confirmed_at) throw unprocessable('email_exists', EMAIL_EXISTS);
    row ??= await newEmailUser(db, call, email, null, data);
    await sendConfirmation(db, call, row, 'invite', redirectTo);
    return (await loadUser(db, row.id))!;
  });
  return ok(userJson(user));
}

/** POST /admin/generate_link: GoTrue's adminGenerateLink, response fields and all. */
export async function generateLink(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const params = await body(call);
  let type = stringField(params, 'type');
  const email = validateEmail(stringField(params, 'email'));
  const data = objectField(params, 'data') ?? {};
  let password = stringField(params, 'password');
  const redirectTo = referrer(call, stringField(params, 'redirect_to') || null);
  const existing = await findUserByEmail(call.pool, email);
  if (!existing) {
    if (type === 'magiclink') {
      type = 'signup';
      password = newOtp(32);
    } else if (['recovery', 'email_change_current', 'email_change_new'].includes(type)) {
      throw new AuthError(404, 'user_not_found', 'User with this email not found');
    }
  }
  if (!LINK_TYPES.includes(type)) throw validationFailed(`Invalid email action link type requested: ${type}`);
  if (type === 'signup' && !existing) {
    if (password === '') throw unprocessable('validation_failed', 'Signup requires a valid password');
    checkPasswordStrength(password);
  }
  const hash = type === 'signup' && !existing ? await hashPassword(password, call.options.bcryptCost) : null;
  const otp = newOtp(call.options.otpLength);
  const hashed = tokenHash(email, otp);
  const { now } = clock(call);

  const { user, linkHash, linkType } = await asAdmin(call.pool, async (db) => {
    let row = existing;
    let linkHash = hashed;
    let linkType = type;
    if (type === 'magiclink' || type === 'recovery') {
      await db.query(`update auth.users set recovery_token = $2, recovery_sent_at = $3 where id = $1`, [
        row!.id,
        hashed,
        now,
      ]);
    } else if (type === 'invite' || type === 'signup') {
      if (row?.email_confirmed_at) throw unprocessable('email_exists', EMAIL_EXISTS);
      if (row && type === 'signup') {
        await db.query(
          `update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || $2::jsonb where id = $1`,
          [row.id, JSON.stringify(data)],
        );
      }
      row ??= await newEmailUser(db, call, email, hash, data);
      await db.query(
        `update auth.users set confirmation_token = $2, confirmation_sent_at = $3,
                invited_at = case when $4 then $3 else invited_at end where id = $1`,
        [row.id, hashed, now, type === 'invite'],
      );
    } else {
      if (type === 'email_change_current' && !call.options.secureEmailChange) {
        throw validationFailed('Enable secure email change to generate link for current email');
      }
      const newEmail = validateEmail(stringField(params, 'new_email'));
      const other = await findUserByEmail(db, newEmail);
      if (other && other.id !== row!.id) throw unprocessable('email_exists', EMAIL_EXISTS);
      if (type === 'email_change_new') linkHash = tokenHash(newEmail, otp);
      await db.query(
        `update auth.users set email_change = $2, email_change_sent_at = $3, email_change_confirm_status = 0,
                email_change_token_current = $4, email_change_token_new = $5 where id = $1`,
        [
          row!.id,
          newEmail,
          now,
          type === 'email_change_current' ? linkHash : '',
          type === 'email_change_new' ? linkHash : '',
        ],
      );
      linkType = 'email_change';
    }
    return { user: (await loadUser(db, row!.id))!, linkHash, linkType };
  });
  return ok({
    ...userJson(user),
    action_link: actionLink(call, linkHash, linkType, redirectTo),
    email_otp: otp,
    hashed_token: linkHash,
    verification_type: type,
    redirect_to: redirectTo,
  });
}

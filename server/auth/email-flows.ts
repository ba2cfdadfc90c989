import { randomBytes } from 'node:crypto';
import { asAdmin } from '../postgres/pool.ts';
import { body, clock, ok, type Call, type Reply } from './call.ts';
import { hashPassword, validateEmail } from './credentials.ts';
import { badRequest, unprocessable, validationFailed } from './errors.ts';
import { requireUser } from './guard.ts';
import { referrer, sendConfirmation, sendEmailChange, sendReauthentication, sendRecovery } from './mailer.ts';
import { objectField, stringField } from './request.ts';
import { findUserByEmail, insertUser, upsertEmailIdentity, type UserRow } from './users.ts';

/** The flows that send mail: /otp (magic link and email code), /recover, /resend, /reauthenticate. */

const EMAIL_APP_METADATA = { provider: 'email', providers: ['email'] };

/** GoTrue's Signup refusal when `enable_signup` is off; every path that creates a user checks it. */
export function checkSignupAllowed(call: Call): void {
  if (call.options.disableSignup) throw unprocessable('signup_disabled', 'Signups not allowed for this instance');
}

/** A user made by a mail flow (magic link for an unknown address): a random password, as GoTrue sets. */
async function createEmailUser(call: Call, email: string, data: Record<string, unknown>): Promise<UserRow> {
  checkSignupAllowed(call);
  const hash = await hashPassword(randomBytes(24).toString('base64url'), call.options.bcryptCost);
  const { now } = clock(call);
  const { autoConfirm } = call.options;
  return asAdmin(call.pool, async (db) => {
    const id = await insertUser(
      db,
      {
        email,
        passwordHash: hash,
        appMetadata: EMAIL_APP_METADATA,
        userMetadata: data,
        confirmed: autoConfirm,
        isAnonymous: false,
      },
      now,
    );
    await upsertEmailIdentity(db, id, email, false, data, now);
    // Fresh: the insert's confirmation_sent_at is no earlier mail (no frequency wait).
    return { ...(await findUserByEmail(db, email))!, confirmation_sent_at: null };
  });
}

/** POST /otp {email, create_user, data} (phone: no SMS provider here). */
export async function otp(call: Call): Promise<Reply> {
  const params = await body(call);
  const email = stringField(params, 'email');
  const phone = stringField(params, 'phone');
  const channel = stringField(params, 'channel');
  const createUser = params.create_user === undefined ? true : params.create_user === true;
  const data = objectField(params, 'data') ?? {};
  if (email !== '' && phone !== '') throw validationFailed('Only an email address or phone number should be provided');
  if (email !== '' && channel !== '') throw validationFailed('Channel should only be specified with Phone OTP');
  if (!createUser && email !== '') {
    if (!(await findUserByEmail(call.pool, validateEmail(email))))
      throw unprocessable('otp_disabled', 'Signups not allowed for otp');
  }
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Unsupported phone provider');
  if (email === '') throw validationFailed('One of email or phone must be set');
  return magicLink(call, validateEmail(email), data);
}

async function magicLink(call: Call, email: string, data: Record<string, unknown>): Promise<Reply> {
  const redirectTo = referrer(call);
  let user = await findUserByEmail(call.pool, email);
  if (!user) user = await createEmailUser(call, email, data);
  const found = user;
  await asAdmin(call.pool, async (db) => {
    // Unconfirmed: the mail confirms the address (GoTrue signs the user up, which mails a confirmation).
    if (!found.email_confirmed_at) await sendConfirmation(db, call, found, 'signup', redirectTo);
    else await sendRecovery(db, call, found, 'magiclink', redirectTo);
  });
  return ok({});
}

/** POST /magiclink: the older endpoint, the same flow. */
export async function magicLinkRoute(call: Call): Promise<Reply> {
  const params = await body(call);
  const email = stringField(params, 'email');
  if (email === '') throw unprocessable('validation_failed', 'Password recovery requires an email');
  return magicLink(call, validateEmail(email), objectField(params, 'data') ?? {});
}

/** POST /recover {email}: a recovery mail; an unknown address gets the same empty answer. */
export async function recover(call: Call): Promise<Reply> {
  const params = await body(call);
  const raw = stringField(params, 'email');
  if (raw === '') throw validationFailed('Password recovery requires an email');
  const email = validateEmail(raw);
  const user = await findUserByEmail(call.pool, email);
  if (!user) return ok({});
  const redirectTo = referrer(call);
  await asAdmin(call.pool, (db) => sendRecovery(db, call, user, 'recovery', redirectTo));
  return ok({});
}

/** POST /resend {type: signup | email_change | sms | phone_change, email | phone}. */
export async function resend(call: Call): Promise<Reply> {
  const params = await body(call);
  const type = stringField(params, 'type');
  const email = stringField(params, 'email');
  const phone = stringField(params, 'phone');
  if (!['signup', 'email_change', 'sms', 'phone_change'].includes(type))
    throw validationFailed('Missing one of these types: signup, email_change, sms, phone_change');
  if (email === '' && type === 'signup') throw validationFailed('Type provided requires an email address');
  if (phone === '' && type === 'sms') throw validationFailed('Type provided requires a phone number');
  if (email !== '' && phone !== '') throw validationFailed('Only an email address or phone number should be provided.');
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Phone logins are disabled');
  if (email === '') throw validationFailed('Missing email address or phone number');
  const user = await findUserByEmail(call.pool, validateEmail(email));
  if (!user) return ok({});
  if (type === 'signup' && user.email_confirmed_at) return ok({});
  if (type === 'email_change' && !user.email_change) return ok({});
  const redirectTo = referrer(call);
  await asAdmin(call.pool, async (db) => {
    if (type === 'signup') await sendConfirmation(db, call, user, 'signup', redirectTo);
    else await sendEmailChange(db, call, user, user.email_change!, redirectTo);
  });
  return ok({});
}

/** GET /reauthenticate: mails the signed-in user a nonce for a password change. */
export async function reauthenticate(call: Call): Promise<Reply> {
  const { user } = await requireUser(call);
  const { row } = user;
  if (!row.email && !row.phone)
    throw validationFailed('Reauthentication requires the user to have an email or a phone number');
  if (row.email) {
    if (!row.email_confirmed_at) throw unprocessable('email_not_confirmed', 'Please verify your email first.');
  } else throw unprocessable('phone_not_confirmed', 'Please verify your phone first.');
  await asAdmin(call.pool, (db) => sendReauthentication(db, call, row));
  return ok({});
}

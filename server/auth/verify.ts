import { asAdminRetrying, body, clientInfo, clock, ok, type Call, type Reply } from './call.ts';
import { validateEmail, validatePhone } from './credentials.ts';
import { AuthError, forbidden, unprocessable, validationFailed } from './errors.ts';
import { referrer, tokenHash } from './mailer.ts';
import { stringField } from './request.ts';
import { amrOf, openSession, sessionJson } from './sessions.ts';
import { isBanned, loadUser, upsertEmailIdentity, type Db, type UserRow } from './users.ts';

/**
 * /verify: a code (POST with email + token) or a link's token hash (POST token_hash, or the
 * GET a mailed link opens) confirms a sign-up or invite, signs in by magic link or recovery,
 * or confirms an email change; GoTrue's verifyPost / verifyGet, answer for answer.
 */

const EMAIL_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email'];
const LINK_INVALID = 'Email link is invalid or has expired';
const TOKEN_INVALID = 'Token has expired or is invalid';
const SINGLE_CONFIRMATION = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';

/** Which token columns a verification type reads. */
const COLUMNS: Record<string, string[]> = {
  email: ['confirmation_token', 'recovery_token'],
  signup: ['confirmation_token'],
  invite: ['confirmation_token'],
  magiclink: ['recovery_token'],
  recovery: ['recovery_token'],
  email_change: ['email_change_token_current', 'email_change_token_new'],
};

interface TokenRow extends UserRow {
  confirmation_token: string | null;
  recovery_token: string | null;
  email_change_token_current: string | null;
  email_change_token_new: string | null;
  email_change_confirm_status: number | null;
}

/** The columns' send times, as ISO strings (null when never sent). */
function sentAt(row: TokenRow, column: string): string | null {
  if (column === 'confirmation_token') return row.confirmation_sent_at;
  if (column === 'recovery_token') return row.recovery_sent_at;
  return row.email_change_sent_at;
}

function expired(call: Call, sent: string | null): boolean {
  return sent === null || call.options.now() > Date.parse(sent) + call.options.otpExpiryMs;
}

async function tokenRows(db: Db, where: string, params: unknown[]): Promise<TokenRow[]> {
  const result = await db.query<{ id: string }>(`select id from auth.users where ${where} limit 2`, params);
  const rows: TokenRow[] = [];
  for (const { id } of result.rows) {
    const extra = await db.query<TokenRow>(
      `select confirmation_token, recovery_token, email_change_token_current, email_change_token_new,
              email_change_confirm_status from auth.users where id = $1`,
      [id],
    );
    const user = await loadUser(db, id);
    if (user && extra.rows[0]) rows.push({ ...user.row, ...extra.rows[0] });
  }
  return rows;
}

/** Finds the user a token belongs to and the column it matched, or throws GoTrue's 403. */
async function findByToken(
  db: Db,
  call: Call,
  type: string,
  hash: string,
  email: string | null,
): Promise<{ user: TokenRow; column: string }> {
  const columns = COLUMNS[type]!;
  const message = email === null ? LINK_INVALID : TOKEN_INVALID;
  const match = columns.map((c) => `${c} = $1`).join(' or ');
  const rows =
    email === null
      ? await tokenRows(db, `(${match})`, [hash])
      : type === 'email_change'
        ? await tokenRows(
            db,
            `deleted_at is null and ((lower(email_change) = lower($2) and email_change_token_new = $1)
               or (lower(email) = lower($2) and email_change_token_current = $1))`,
            [hash, email],
          )
        : await tokenRows(db, `deleted_at is null and lower(email) = lower($2) and (${match})`, [hash, email]);
  const user = rows[0];
  if (!user) throw forbidden('otp_expired', message);
  if (isBanned(user, call.options.now())) throw forbidden('user_banned', 'User is banned');
  const column = columns.find((c) => user[c as keyof TokenRow] === hash)!;
  if (expired(call, sentAt(user, column))) throw forbidden('otp_expired', message);
  return { user, column };
}

/** Applies a verified token; null means "first of two email-change confirmations". */
async function apply(db: Db, call: Call, type: string, user: TokenRow, column: string): Promise<string | null> {
  const { now } = clock(call);
  const kind = type === 'email' ? (column === 'recovery_token' ? 'magiclink' : 'signup') : type;
  if (kind === 'signup' || kind === 'invite') {
    await db.query(
      `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2), confirmation_token = '',
              updated_at = $2 where id = $1`,
      [user.id, now],
    );
    if (user.email) await upsertEmailIdentity(db, user.id, user.email, true, {}, now);
  } else if (kind === 'magiclink' || kind === 'recovery') {
    await db.query(
      `update auth.users set recovery_token = '', email_confirmed_at = coalesce(email_confirmed_at, $2),
              updated_at = $2 where id = $1`,
      [user.id, now],
    );
    if (user.email && !user.email_confirmed_at) await upsertEmailIdentity(db, user.id, user.email, true, {}, now);
  } else {
    const double =
      !call.options.autoConfirm && call.options.secureEmailChange && !user.email_change_confirm_status && user.email;
    if (double) {
      await db.query(`update auth.users set email_change_confirm_status = 1, ${column} = '' where id = $1`, [user.id]);
      return null;
    }
    const email = user.email_change ?? '';
    await db.query(
      `update auth.users
          set email = $2, email_change = '', email_change_token_new = '', email_change_token_current = '',
              email_change_confirm_status = 0, email_confirmed_at = coalesce(email_confirmed_at, $3),
              is_anonymous = false, updated_at = $3,
              raw_app_meta_data = case when is_anonymous then coalesce(raw_app_meta_data, '{}'::jsonb)
                || '{"provider":"email","providers":["email"]}'::jsonb else raw_app_meta_data end
        where id = $1`,
      [user.id, email, now],
    );
    await upsertEmailIdentity(db, user.id, email, true, {}, now);
  }
  return kind;
}

/** Verifies and signs in, in one transaction; null body means the single-confirmation answer. */
async function verifyAndSignIn(
  call: Call,
  type: string,
  hash: string,
  email: string | null,
): Promise<{ session: Record<string, unknown> } | { message: string }> {
  const { nowMs, now } = clock(call);
  return asAdminRetrying(call.pool, async (db) => {
    const { user, column } = await findByToken(db, call, type, hash, email);
    const applied = await apply(db, call, type, user, column);
    if (applied === null) return { message: SINGLE_CONFIRMATION };
    const { sessionId, refreshToken } = await openSession(db, user.id, 'otp', clientInfo(call), now);
    const loaded = (await loadUser(db, user.id))!;
    const amr = await amrOf(db, sessionId);
    return { session: sessionJson(call.signer, loaded, sessionId, refreshToken, amr, nowMs) };
  });
}

/** POST /verify {type, token + email | token_hash} (phone codes: no SMS is ever sent here). */
export async function verify(call: Call): Promise<Reply> {
  const params = await body(call);
  const type = stringField(params, 'type');
  const token = stringField(params, 'token');
  const hashParam = stringField(params, 'token_hash');
  const email = stringField(params, 'email');
  const phone = stringField(params, 'phone');
  if (type === '') throw validationFailed('Verify requires a verification type');
  if ((token === '' && hashParam === '') || (token !== '' && hashParam !== ''))
    throw validationFailed('Verify requires either a token or a token hash');
  let hash = hashParam;
  let address: string | null = null;
  if (token !== '') {
    if (phone !== '' && email === '') {
      validatePhone(phone);
      if (type !== 'sms' && type !== 'phone_change') throw validationFailed('Unsupported verification type');
      throw forbidden('otp_expired', TOKEN_INVALID);
    }
    if (email === '' || phone !== '')
      throw validationFailed('Only an email address or phone number should be provided on verify');
    try {
      address = validateEmail(email);
    } catch {
      throw unprocessable('validation_failed', 'Invalid email format');
    }
    hash = tokenHash(address, token);
  } else if (email !== '' || phone !== '' || stringField(params, 'redirect_to') !== '') {
    throw validationFailed('Only the token_hash and type should be provided');
  }
  if (!EMAIL_TYPES.includes(type)) {
    if (address === null) throw validationFailed('Invalid email verification type');
    throw validationFailed('Unsupported verification type');
  }
  const result = await verifyAndSignIn(call, type, hash, address);
  if ('message' in result) return ok({ msg: result.message, code: '200' });
  return ok(result.session);
}

const OAUTH_ERRORS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized_client',
  403: 'access_denied',
  500: 'server_error',
  503: 'temporarily_unavailable',
};

function withFragment(target: string, values: Record<string, string>): string {
  const url = new URL(target);
  const fragment = new URLSearchParams();
  for (const key of Object.keys(values).sort()) fragment.set(key, values[key]!);
  url.hash = fragment.toString();
  return url.toString();
}

/** GET /verify?token=<hash>&type=...&redirect_to=...: a mailed link; always a 303 to the app. */
export async function verifyLink(call: Call): Promise<Reply> {
  const query = call.ctx.url.searchParams;
  const type = query.get('type') ?? '';
  const token = query.get('token') ?? '';
  if (type === '') throw validationFailed('Verify requires a verification type');
  if (token === '') throw validationFailed('Verify requires a token or a token hash');
  const redirectTo = referrer(call);
  let location: string;
  try {
    if (!EMAIL_TYPES.includes(type) || type === 'email') throw validationFailed('Unsupported verification type');
    const result = await verifyAndSignIn(call, type, token, null);
    if ('message' in result) location = withFragment(redirectTo, { message: result.message, sb: '' });
    else {
      const s = result.session;
      location = withFragment(redirectTo, {
        access_token: String(s.access_token),
        expires_at: String(s.expires_at),
        expires_in: String(s.expires_in),
        refresh_token: String(s.refresh_token),
        token_type: 'bearer',
        type,
      });
    }
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    const values: Record<string, string> = { error_code: error.code, error_description: error.message, sb: '' };
    const oauth = OAUTH_ERRORS[error.status];
    if (oauth) values.error = oauth;
    location = withFragment(redirectTo, values);
  }
  return { status: 303, headers: { location } };
}

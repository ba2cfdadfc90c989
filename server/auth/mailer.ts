import { createHash, randomInt } from 'node:crypto';
import type { Call } from './call.ts';
import { AuthError } from './errors.ts';
import type { Db, UserRow } from './users.ts';

/**
 * GoTrue's mailer: a one-time code and its hash per mail, the hash kept on the user row
 * (confirmation_token, recovery_token, ...), the mail delivered to the local mailbox. Links
 * point at GET /verify with the hash, as GoTrue's templates do.
 */

export type MailKind = 'signup' | 'invite' | 'magiclink' | 'recovery' | 'email_change' | 'reauthentication';

const SUBJECTS: Record<MailKind, (otp: string) => string> = {
  signup: () => 'Confirm your email address',
  invite: () => "You've been invited",
  magiclink: () => 'Your sign-in link',
  recovery: () => 'Reset your password',
  email_change: () => 'Confirm your new email address',
  reauthentication: (otp) => `${otp} is your verification code`,
};

const LEADS: Record<MailKind, string> = {
  signup: 'Follow this link to confirm your email address:',
  invite: 'You have been invited to create an account. Follow this link to accept the invite:',
  magiclink: 'Follow this link to sign in:',
  recovery: 'Follow this link to reset the password for your account:',
  email_change: 'Follow this link to confirm the change of your email address:',
  reauthentication: 'Enter this code to confirm it is you:',
};

/** GoTrue's crypto.GenerateOtp: `length` decimal digits. */
export function newOtp(length: number): string {
  let otp = '';
  for (let i = 0; i < length; i += 1) otp += String(randomInt(10));
  return otp;
}

/** GoTrue's crypto.GenerateTokenHash: hex SHA-224 of the address followed by the code. */
export function tokenHash(address: string, otp: string): string {
  return createHash('sha224')
    .update(address + otp)
    .digest('hex');
}

/** Where a link sends the browser afterwards: `redirect_to` when it is an allowed URL, else the site URL. */
export function referrer(call: Call, requested?: string | null): string {
  const wanted = requested ?? call.ctx.url.searchParams.get('redirect_to') ?? '';
  if (wanted && isAllowedRedirect(call, wanted)) return wanted;
  return call.options.siteUrl;
}

function isAllowedRedirect(call: Call, target: string): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // Local development: any loopback origin (the app, a test's own page), and the site itself.
  if (['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return true;
  return url.origin === new URL(call.options.siteUrl).origin;
}

/** GET /auth/v1/verify?token=<hash>&type=<type>&redirect_to=<referrer>, as GetEmailActionLink builds it. */
export function actionLink(call: Call, hash: string, type: string, redirectTo: string): string {
  const link = new URL(`${call.apiUrl()}/auth/v1/verify`);
  link.searchParams.set('token', hash);
  link.searchParams.set('type', type);
  link.searchParams.set('redirect_to', redirectTo);
  return link.toString();
}

/** GoTrue's validateSentWithinFrequencyLimit (SMTP max_frequency). */
export function checkFrequency(call: Call, sentAt: string | null): void {
  if (!sentAt) return;
  const wait = Date.parse(sentAt) + call.options.emailMaxFrequencyMs - call.options.now();
  if (wait > 0) {
    throw new AuthError(
      429,
      'over_email_send_rate_limit',
      `For security purposes, you can only request this after ${Math.floor(wait / 1000)} seconds.`,
    );
  }
}

export interface Outgoing {
  kind: MailKind;
  to: string;
  otp: string;
  /** The link's token (the hash) and type; none for reauthentication. */
  link?: { hash: string; type: string; redirectTo: string };
}

/** Renders and delivers one mail to the mailbox. */
export function deliver(call: Call, mail: Outgoing): void {
  const link = mail.link ? actionLink(call, mail.link.hash, mail.link.type, mail.link.redirectTo) : null;
  const lead = LEADS[mail.kind];
  const text = [lead, link ?? mail.otp, link ? `Alternatively, enter the code: ${mail.otp}` : '']
    .filter((l) => l !== '')
    .join('\n\n');
  const html = link
    ? `<h2>${SUBJECTS[mail.kind](mail.otp)}</h2><p>${lead}</p><p><a href="${encodeURI(link).replace(/"/g, '%22')}">${
        mail.kind === 'recovery' ? 'Reset password' : mail.kind === 'magiclink' ? 'Sign in' : 'Confirm'
      }</a></p><p>Alternatively, enter the code: ${mail.otp}</p>`
    : `<h2>Confirm it is you</h2><p>${lead}</p><p><code>${mail.otp}</code></p>`;
  call.mailbox.deliver(
    { to: mail.to, subject: SUBJECTS[mail.kind](mail.otp), kind: mail.kind, text, html, otp: mail.otp, link },
    call.options.now(),
  );
}

const now = (call: Call) => new Date(call.options.now()).toISOString();

/** sendConfirmation / sendInvite: a new confirmation token, mailed. */
export async function sendConfirmation(
  db: Db,
  call: Call,
  user: UserRow,
  kind: 'signup' | 'invite',
  redirectTo: string,
): Promise<void> {
  if (kind === 'signup') checkFrequency(call, user.confirmation_sent_at);
  const email = user.email ?? '';
  const otp = newOtp(call.options.otpLength);
  const hash = tokenHash(email, otp);
  await db.query(
    `update auth.users set confirmation_token = $2, confirmation_sent_at = $3,
            invited_at = case when $4 then $3 else invited_at end where id = $1`,
    [user.id, hash, now(call), kind === 'invite'],
  );
  deliver(call, { kind, to: email, otp, link: { hash, type: kind, redirectTo } });
}

/** sendMagicLink / sendPasswordRecovery: a new recovery token, mailed. */
export async function sendRecovery(
  db: Db,
  call: Call,
  user: UserRow,
  kind: 'magiclink' | 'recovery',
  redirectTo: string,
): Promise<void> {
  checkFrequency(call, user.recovery_sent_at);
  const email = user.email ?? '';
  const otp = newOtp(call.options.otpLength);
  const hash = tokenHash(email, otp);
  await db.query(`update auth.users set recovery_token = $2, recovery_sent_at = $3 where id = $1`, [
    user.id,
    hash,
    now(call),
  ]);
  deliver(call, { kind, to: email, otp, link: { hash, type: kind, redirectTo } });
}

/** sendReauthenticationOtp: a code only, no link. */
export async function sendReauthentication(db: Db, call: Call, user: UserRow): Promise<void> {
  checkFrequency(call, user.reauthentication_sent_at);
  const email = user.email ?? '';
  const otp = newOtp(call.options.otpLength);
  await db.query(`update auth.users set reauthentication_token = $2, reauthentication_sent_at = $3 where id = $1`, [
    user.id,
    tokenHash(email, otp),
    now(call),
  ]);
  deliver(call, { kind: 'reauthentication', to: email, otp });
}

/**
 * sendEmailChange: a token for the new address and, with secure email change, one for the
 * current address; each address gets its own mail. Confirm status starts at zero.
 */
export async function sendEmailChange(
  db: Db,
  call: Call,
  user: UserRow,
  newEmail: string,
  redirectTo: string,
): Promise<void> {
  checkFrequency(call, user.email_change_sent_at);
  const otpNew = newOtp(call.options.otpLength);
  const hashNew = tokenHash(newEmail, otpNew);
  const current = call.options.secureEmailChange && user.email ? user.email : null;
  const otpCurrent = current ? newOtp(call.options.otpLength) : '';
  const hashCurrent = current ? tokenHash(current, otpCurrent) : '';
  await db.query(
    `update auth.users set email_change = $2, email_change_token_new = $3, email_change_token_current = $4,
            email_change_confirm_status = 0, email_change_sent_at = $5 where id = $1`,
    [user.id, newEmail, hashNew, hashCurrent, now(call)],
  );
  deliver(call, {
    kind: 'email_change',
    to: newEmail,
    otp: otpNew,
    link: { hash: hashNew, type: 'email_change', redirectTo },
  });
  if (current) {
    deliver(call, {
      kind: 'email_change',
      to: current,
      otp: otpCurrent,
      link: { hash: hashCurrent, type: 'email_change', redirectTo },
    });
  }
}

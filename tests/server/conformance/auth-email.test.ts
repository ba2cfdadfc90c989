import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, secondGateway } from '../auth-helpers.ts';
import { backendInfo, serviceClient, uniqueEmail } from '../../setup/clients.ts';

/** Email flows through real supabase-js, reading codes and links from the local mailbox's JSON API. */

interface Mail {
  to: string;
  subject: string;
  kind: string;
  otp: string | null;
  link: string | null;
}

async function mails(base: string, to: string): Promise<Mail[]> {
  const res = await fetch(`${base}/mailbox/api/messages?to=${encodeURIComponent(to)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Mail[] }).messages;
}

function client(url = backendInfo().url, key = backendInfo().anonKey) {
  return createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

describe('email flows (autoconfirm on, as the CLI runs)', () => {
  const base = () => backendInfo().url;

  it('magic link and email OTP: the mail carries a code that verifyOtp turns into a session', async () => {
    const email = uniqueEmail('otp');
    const auth = client().auth;
    const sent = await auth.signInWithOtp({ email });
    expect(sent.error).toBeNull();
    const [mail] = await mails(base(), email);
    expect(mail).toMatchObject({ kind: 'magiclink', subject: 'Your sign-in link' });
    expect(mail!.otp).toMatch(/^\d{6}$/);
    const verified = await auth.verifyOtp({ email, token: mail!.otp!, type: 'email' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email).toBe(email);
    // A code works once.
    const again = await client().auth.verifyOtp({ email, token: mail!.otp!, type: 'email' });
    expect(again.error).toMatchObject({ status: 403, code: 'otp_expired', message: 'Token has expired or is invalid' });
  });

  it('create_user: false refuses an unknown address with otp_disabled', async () => {
    const { error } = await client().auth.signInWithOtp({
      email: uniqueEmail('nobody'),
      options: { shouldCreateUser: false },
    });
    expect(error).toMatchObject({ status: 422, code: 'otp_disabled', message: 'Signups not allowed for otp' });
  });

  it('GET /verify from the mailed link redirects with the session in the fragment, and with an error once used', async () => {
    const email = uniqueEmail('link');
    await client().auth.signInWithOtp({ email, options: { emailRedirectTo: 'http://127.0.0.1:3999/welcome' } });
    const [mail] = await mails(base(), email);
    expect(mail!.link).toContain('/auth/v1/verify?token=');
    const first = await fetch(mail!.link!, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const location = new URL(first.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:3999/welcome');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('type')).toBe('magiclink');
    const { data } = await client().auth.getUser(fragment.get('access_token')!);
    expect(data.user?.email).toBe(email);
    const second = await fetch(mail!.link!, { redirect: 'manual' });
    const failed = new URLSearchParams(new URL(second.headers.get('location')!).hash.slice(1));
    expect(Object.fromEntries(failed)).toEqual({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
      sb: '',
    });
  });

  it('password recovery: /recover mails a code; verifying it signs in and the password can change', async () => {
    const email = uniqueEmail('recover');
    expect((await client().auth.signUp({ email, password: 'first-password-1' })).error).toBeNull();
    const auth = client().auth;
    expect((await auth.resetPasswordForEmail(email)).error).toBeNull();
    const [mail] = await mails(base(), email);
    expect(mail).toMatchObject({ kind: 'recovery', subject: 'Reset your password' });
    const verified = await auth.verifyOtp({ email, token: mail!.otp!, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect((await auth.updateUser({ password: 'second-password-2' })).error).toBeNull();
    const signIn = await client().auth.signInWithPassword({ email, password: 'second-password-2' });
    expect(signIn.error).toBeNull();
    // An unknown address gets the same empty answer (nothing revealed).
    expect((await client().auth.resetPasswordForEmail(uniqueEmail('ghost'))).error).toBeNull();
  });

  it('email change: pending until the new address confirms (autoconfirm: one confirmation is enough)', async () => {
    const email = uniqueEmail('change');
    const auth = client().auth;
    await auth.signUp({ email, password: 'change-password-1' });
    const next = uniqueEmail('changed');
    const pending = await auth.updateUser({ email: next });
    expect(pending.error).toBeNull();
    expect(pending.data.user).toMatchObject({ email, new_email: next });
    const [mail] = await mails(base(), next);
    expect(mail).toMatchObject({ kind: 'email_change', subject: 'Confirm your new email address' });
    const verified = await auth.verifyOtp({ email: next, token: mail!.otp!, type: 'email_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(next);
    expect(verified.data.user?.new_email).toBeUndefined();
  });

  it('/resend validates the type and answers {} for an unknown address', async () => {
    const bad = await client().auth.resend({ type: 'nonsense' as 'signup', email: uniqueEmail('resend') });
    expect(bad.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'Missing one of these types: signup, email_change, sms, phone_change',
    });
    expect((await client().auth.resend({ type: 'signup', email: uniqueEmail('resend') })).error).toBeNull();
  });

  it('admin generate_link returns GoTrue properties for each type; invite mails the link', async () => {
    const admin = serviceClient().auth.admin;
    const email = uniqueEmail('genlink');
    const signup = await admin.generateLink({ type: 'signup', email, password: 'generated-pass-1' });
    expect(signup.error).toBeNull();
    expect(signup.data.properties).toMatchObject({ verification_type: 'signup' });
    expect(signup.data.properties?.email_otp).toMatch(/^\d{6}$/);
    expect(signup.data.properties?.action_link).toContain(`token=${signup.data.properties!.hashed_token}`);
    const verified = await client().auth.verifyOtp({
      token_hash: signup.data.properties!.hashed_token,
      type: 'signup',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();

    const magic = await admin.generateLink({ type: 'magiclink', email });
    expect(magic.data.properties?.verification_type).toBe('magiclink');
    const recovery = await admin.generateLink({ type: 'recovery', email });
    expect(
      (await client().auth.verifyOtp({ email, token: recovery.data.properties!.email_otp, type: 'recovery' })).error,
    ).toBeNull();
    const change = await admin.generateLink({ type: 'email_change_new', email, newEmail: uniqueEmail('gl-new') });
    expect(change.data.properties?.action_link).toContain('type=email_change');
    const missing = await admin.generateLink({ type: 'recovery', email: uniqueEmail('missing') });
    expect(missing.error).toMatchObject({ status: 404, code: 'user_not_found' });

    const invited = uniqueEmail('invited');
    const inv = await admin.inviteUserByEmail(invited, { data: { team: 'blue' } });
    expect(inv.error).toBeNull();
    expect(inv.data.user?.invited_at).toBeTruthy();
    const [mail] = await mails(base(), invited);
    expect(mail).toMatchObject({ kind: 'invite', subject: "You've been invited" });
    const accepted = await client().auth.verifyOtp({ email: invited, token: mail!.otp!, type: 'invite' });
    expect(accepted.error).toBeNull();
    const again = await admin.inviteUserByEmail(invited);
    expect(again.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('the mailbox page lists the mail', async () => {
    const email = uniqueEmail('page');
    await client().auth.signInWithOtp({ email });
    const page = await fetch(`${base()}/mailbox?to=${encodeURIComponent(email)}`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Your sign-in link');
  });
});

describe('email flows with confirmations on (secure email change, reauthentication)', () => {
  const clock = manualClock();
  let gateway: Awaited<ReturnType<typeof secondGateway>>;
  beforeAll(async () => {
    gateway = await secondGateway({
      autoConfirm: false,
      auth: { now: clock.now, securePasswordChange: true },
    });
  });
  afterAll(async () => {
    await gateway.backend.stop();
  });

  it('sign-up mails a confirmation; verifying the code signs in', async () => {
    const email = uniqueEmail('confirm');
    const auth = gateway.client().auth;
    const signed = await auth.signUp({ email, password: 'confirm-pass-1' });
    expect(signed.data.session).toBeNull();
    const [mail] = await mails(gateway.backend.url, email);
    expect(mail).toMatchObject({ kind: 'signup', subject: 'Confirm your email address' });
    // Mail frequency: a resend within the limit is refused with GoTrue's 429.
    const early = await auth.resend({ type: 'signup', email });
    expect(early.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
    const verified = await auth.verifyOtp({ email, token: mail!.otp!, type: 'signup' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email_confirmed_at).toBeTruthy();
  });

  it('email change needs both addresses; a password change needs the reauthentication nonce', async () => {
    const email = uniqueEmail('secure');
    const admin = gateway.client();
    const { data } = await serviceClient().auth.admin.createUser({
      email,
      password: 'secure-pass-1',
      email_confirm: true,
    });
    expect(data.user).toBeTruthy();
    void admin;
    const auth = gateway.client().auth;
    expect((await auth.signInWithPassword({ email, password: 'secure-pass-1' })).error).toBeNull();
    const next = uniqueEmail('secure-new');
    clock.advance(2000);
    expect((await auth.updateUser({ email: next })).error).toBeNull();
    const [toNew] = await mails(gateway.backend.url, next);
    const [toCurrent] = (await mails(gateway.backend.url, email)).filter((m) => m.kind === 'email_change');
    const first = await auth.verifyOtp({ email: next, token: toNew!.otp!, type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    const second = await auth.verifyOtp({ email, token: toCurrent!.otp!, type: 'email_change' });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(next);

    // The session is fresh (< 24 h): no nonce needed. A day later it is.
    clock.advance(25 * 3600 * 1000);
    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const denied = await auth.updateUser({ password: 'secure-pass-2' });
    expect(denied.error).toMatchObject({ status: 400, code: 'reauthentication_needed' });
    expect((await auth.reauthenticate()).error).toBeNull();
    const [nonceMail] = (await mails(gateway.backend.url, next)).filter((m) => m.kind === 'reauthentication');
    expect(nonceMail!.subject).toBe(`${nonceMail!.otp} is your verification code`);
    const wrong = await auth.updateUser({
      password: 'secure-pass-2',
      nonce: '000000' === nonceMail!.otp ? '111111' : '000000',
    });
    expect(wrong.error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' });
    const changed = await auth.updateUser({ password: 'secure-pass-2', nonce: nonceMail!.otp! });
    expect(changed.error).toBeNull();
  });
});

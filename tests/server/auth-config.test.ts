import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceClient, uniqueEmail } from '../setup/clients.ts';
import { authFetch, manualClock, secondGateway } from './auth-helpers.ts';

describe('auth with autoConfirm off (second gateway)', () => {
  let gateway: Awaited<ReturnType<typeof secondGateway>>;
  beforeAll(async () => {
    gateway = await secondGateway({ autoConfirm: false });
  });
  afterAll(async () => {
    await gateway?.backend.stop();
  });

  it('returns the user without a session and refuses sign-in until confirmed', async () => {
    const email = uniqueEmail('unconfirmed');
    const { data, error } = await gateway.client().auth.signUp({ email, password: 'secret-123' });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user).toMatchObject({ email, is_anonymous: false });
    expect(data.user?.email_confirmed_at).toBeUndefined();
    expect(data.user?.confirmation_sent_at).toBeTruthy();

    const early = await gateway.client().auth.signInWithPassword({ email, password: 'secret-123' });
    expect(early.error).toMatchObject({ status: 400, code: 'email_not_confirmed', message: 'Email not confirmed' });

    // A repeated sign-up answers a decoy user, so it does not reveal who is registered.
    const repeat = await gateway.client().auth.signUp({ email, password: 'secret-123' });
    expect(repeat.error).toBeNull();
    expect(repeat.data.user?.id).not.toBe(data.user?.id);

    await serviceClient().auth.admin.updateUserById(data.user!.id, { email_confirm: true });
    const later = await gateway.client().auth.signInWithPassword({ email, password: 'secret-123' });
    expect(later.error).toBeNull();

    // Without a mailer an email change stays pending, as GoTrue's unconfirmed change does.
    const client = gateway.client();
    await client.auth.setSession(later.data.session!);
    const next = uniqueEmail('pending');
    const changed = await client.auth.updateUser({ email: next });
    expect(changed.data.user).toMatchObject({ email, new_email: next });

    const settings = await authFetch('/settings', { base: gateway.backend.url });
    expect(settings.json?.mailer_autoconfirm).toBe(false);
  });
});

describe('auth sign-in rate limits (second gateway, manual clock)', () => {
  const clock = manualClock();
  let gateway: Awaited<ReturnType<typeof secondGateway>>;
  beforeAll(async () => {
    gateway = await secondGateway({
      auth: { now: clock.now, signInLimit: { maxFailuresPerEmail: 3, maxFailuresPerIp: 6, windowSeconds: 60 } },
    });
  });
  afterAll(async () => {
    await gateway?.backend.stop();
  });

  const signIn = (email: string, password: string) => gateway.client().auth.signInWithPassword({ email, password });

  it('slows repeated failures for one email, then lets it in once the window passes', async () => {
    const email = uniqueEmail('limited');
    await gateway.client().auth.signUp({ email, password: 'right-password' });
    for (let i = 0; i < 3; i += 1)
      expect((await signIn(email, 'wrong-password')).error?.code).toBe('invalid_credentials');
    const blocked = await signIn(email, 'right-password');
    expect(blocked.error).toMatchObject({
      status: 429,
      code: 'over_request_rate_limit',
      message: 'Request rate limit reached',
    });

    clock.advance(61_000);
    expect((await signIn(email, 'right-password')).error).toBeNull();
    // The success cleared the count: two more failures do not block.
    for (let i = 0; i < 2; i += 1) await signIn(email, 'wrong-password');
    expect((await signIn(email, 'right-password')).error).toBeNull();
  });

  it('slows failures from one IP address across emails', async () => {
    const email = uniqueEmail('victim');
    await gateway.client().auth.signUp({ email, password: 'right-password' });
    for (let i = 0; i < 6; i += 1) await signIn(uniqueEmail('spray'), 'guess-password');
    expect((await signIn(email, 'right-password')).error?.status).toBe(429);
    clock.advance(61_000);
    expect((await signIn(email, 'right-password')).error).toBeNull();
  });
});

describe('auth with anonymous sign-ins disabled (second gateway)', () => {
  it('answers anonymous_provider_disabled', async () => {
    const gateway = await secondGateway({ auth: { anonymousSignIns: false } });
    try {
      const { error } = await gateway.client().auth.signInAnonymously();
      expect(error).toMatchObject({ status: 422, code: 'anonymous_provider_disabled' });
    } finally {
      await gateway.backend.stop();
    }
  });
});

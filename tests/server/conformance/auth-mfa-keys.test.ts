import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { generateSigningJwk } from '../../../server/jwt-keys.ts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsOf, secondGateway } from '../auth-helpers.ts';
import { backendInfo, serviceClient, signedInClient } from '../../setup/clients.ts';
import { totpCode } from '../../../server/auth/totp.ts';
import { hotp } from '../../../server/auth/totp.ts';

describe('TOTP (RFC 6238)', () => {
  it('matches the RFC 4226 test vectors', () => {
    const secret = Buffer.from('12345678901234567890');
    expect([0, 1, 2, 9].map((c) => hotp(secret, c))).toEqual(['755224', '287082', '359152', '520489']);
  });
});

describe('MFA with TOTP factors through supabase-js', () => {
  it('enroll, challenge, verify to aal2 (readable by SQL), list, unenroll; admin lists and deletes', async () => {
    const { client, email } = await signedInClient('mfa');
    const auth = client.auth;
    const enrolled = await auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
    expect(enrolled.error).toBeNull();
    const factor = enrolled.data!;
    expect(factor.type).toBe('totp');
    expect(factor.totp.uri).toMatch(/^otpauth:\/\/totp\/.+\?secret=[A-Z2-7]+/);
    expect(factor.totp.uri).toContain(encodeURIComponent(email));
    expect(factor.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg/);
    const dup = await auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
    expect(dup.error).toMatchObject({ status: 422, code: 'mfa_factor_name_conflict' });

    const challenge = await auth.mfa.challenge({ factorId: factor.id });
    expect(challenge.error).toBeNull();
    const wrong = await auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data!.id,
      code: '000000' === totpCode(factor.totp.secret, Date.now()) ? '111111' : '000000',
    });
    expect(wrong.error).toMatchObject({
      status: 422,
      code: 'mfa_verification_failed',
      message: 'Invalid TOTP code entered',
    });
    const verified = await auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data!.id,
      code: totpCode(factor.totp.secret, Date.now()),
    });
    expect(verified.error).toBeNull();
    const claims = claimsOf(verified.data!.access_token);
    expect(claims.aal).toBe('aal2');
    expect((claims.amr as { method: string }[]).map((a) => a.method)).toEqual(
      expect.arrayContaining(['totp', 'password']),
    );
    const level = await auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });

    // RLS reads the level through auth.jwt(): a probe function in a schema of its own.
    const db = new pg.Client({ connectionString: backendInfo().adminDatabaseUrl });
    await db.connect();
    try {
      const res = await db.query<{ aal: string }>(
        `select set_config('request.jwt.claims', $1, true), (auth.jwt() ->> 'aal') as aal`,
        [JSON.stringify(claims)],
      );
      expect(res.rows[0]!.aal).toBe('aal2');
    } finally {
      await db.end();
    }

    const listed = await auth.mfa.listFactors();
    expect(listed.data?.totp.map((f) => f.id)).toEqual([factor.id]);
    expect(listed.data?.totp[0]?.status).toBe('verified');

    const user = (await auth.getUser()).data.user!;
    const adminList = await serviceClient().auth.admin.mfa.listFactors({ userId: user.id });
    expect(adminList.data?.factors.map((f) => f.id)).toEqual([factor.id]);

    // A second factor: refreshing keeps aal2, unenrolling works at aal2.
    const second = await auth.mfa.enroll({ factorType: 'totp', friendlyName: 'backup' });
    const refreshed = await auth.refreshSession();
    expect(claimsOf(refreshed.data.session!.access_token).aal).toBe('aal2');
    expect((await auth.mfa.unenroll({ factorId: second.data!.id })).error).toBeNull();
    const deleted = await serviceClient().auth.admin.mfa.deleteFactor({ userId: user.id, id: factor.id });
    expect(deleted.error).toBeNull();
    const none = await serviceClient().auth.admin.mfa.listFactors({ userId: user.id });
    expect(none.data?.factors).toEqual([]);
    const gone = await auth.mfa.challenge({ factorId: factor.id });
    expect(gone.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
  });

  it('a verified factor cannot be removed from an aal1 session', async () => {
    const { client, email, password } = await signedInClient('mfa-aal1');
    const factor = (await client.auth.mfa.enroll({ factorType: 'totp' })).data!;
    await client.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totpCode(factor.totp.secret, Date.now()) });
    const fresh = await signedInClient('unused');
    void fresh;
    const other = (await import('../../setup/clients.ts')).anonClient();
    await other.auth.signInWithPassword({ email, password });
    const refused = await other.auth.mfa.unenroll({ factorId: factor.id });
    expect(refused.error).toMatchObject({ status: 401, code: 'insufficient_aal' });
    const level = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
  });
});

describe('asymmetric signing keys (second gateway with --signing-keys)', () => {
  let gateway: Awaited<ReturnType<typeof secondGateway>>;
  beforeAll(async () => {
    // A JWK file of its own (signing_keys_path); the secret differs so other gateways stay HS256-only.
    const file = `/tmp/chartroom-keys-${randomUUID()}.json`;
    writeFileSync(file, JSON.stringify([generateSigningJwk()]));
    gateway = await secondGateway({
      jwtSecret: `asymmetric-test-secret-${randomUUID()}`,
      auth: { signingKeysPath: file },
    });
  });
  afterAll(async () => {
    await gateway.backend.stop();
  });

  it('publishes the public key at jwks.json; access tokens are ES256 and getClaims verifies them locally', async () => {
    const res = await fetch(`${gateway.backend.url}/auth/v1/.well-known/jwks.json`);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(keys[0]).not.toHaveProperty('d');
    const auth = gateway.client().auth;
    const email = `keys-${randomUUID().slice(0, 8)}@example.test`;
    const signed = await auth.signUp({ email, password: 'asymmetric-pass-1' });
    expect(signed.error).toBeNull();
    const header: unknown = JSON.parse(
      Buffer.from(signed.data.session!.access_token.split('.')[0]!, 'base64url').toString(),
    );
    expect(header).toMatchObject({ alg: 'ES256', kid: keys[0]!.kid });
    const claims = await auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.email).toBe(email);
    // The gateway accepts the ES256 token for the other services too.
    const user = await auth.getUser();
    expect(user.data.user?.email).toBe(email);
  });

  it('the main backend stays HS256 with an empty key set', async () => {
    const res = await fetch(`${backendInfo().url}/auth/v1/.well-known/jwks.json`);
    expect(await res.json()).toEqual({ keys: [] });
  });
});

describe('signup and anonymous sign-ins turned off (second gateway)', () => {
  let gateway: Awaited<ReturnType<typeof secondGateway>>;
  beforeAll(async () => {
    gateway = await secondGateway({ auth: { disableSignup: true, anonymousSignIns: false } });
  });
  afterAll(async () => {
    await gateway.backend.stop();
  });

  it('answers signup_disabled for sign-ups and magic links to new addresses', async () => {
    const auth = gateway.client().auth;
    const signUp = await auth.signUp({
      email: `off-${randomUUID().slice(0, 8)}@example.test`,
      password: 'pass-word-1',
    });
    expect(signUp.error).toMatchObject({
      status: 422,
      code: 'signup_disabled',
      message: 'Signups not allowed for this instance',
    });
    const anon = await auth.signInAnonymously();
    expect(anon.error).toMatchObject({ status: 422, code: 'signup_disabled' });
    const otp = await auth.signInWithOtp({ email: `off-${randomUUID().slice(0, 8)}@example.test` });
    expect(otp.error).toMatchObject({ status: 422, code: 'signup_disabled' });
    const settings = await fetch(`${gateway.backend.url}/auth/v1/settings`, {
      headers: { apikey: gateway.backend.anonKey },
    });
    expect(await settings.json()).toMatchObject({ disable_signup: true, external: { anonymous_users: false } });
  });
});

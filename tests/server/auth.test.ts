import { AuthApiError, AuthWeakPasswordError } from '@supabase/supabase-js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminDb, anonClient, backendInfo, signedInClient, uniqueEmail, serviceClient } from '../setup/clients.ts';
import { authFetch, claimsOf } from './auth-helpers.ts';

describe('auth: sign-up, sign-in and the user', () => {
  it('signs up with email and password and returns a session (auto-confirm)', async () => {
    const client = anonClient();
    const email = uniqueEmail('signup');
    const { data, error } = await client.auth.signUp({
      email,
      password: 'secret-123',
      options: { data: { name: 'Ada' } },
    });
    expect(error).toBeNull();
    expect(data.session?.token_type).toBe('bearer');
    expect(data.session?.refresh_token).toMatch(/^[a-z0-9]{12}$/);
    expect(data.session?.expires_in).toBe(3600);
    const user = data.user!;
    expect(user).toMatchObject({
      aud: 'authenticated',
      role: 'authenticated',
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { name: 'Ada' },
      is_anonymous: false,
    });
    expect(user.email_confirmed_at).toMatch(/Z$/);
    expect(user.confirmed_at).toBe(user.email_confirmed_at);
    expect(user.identities).toHaveLength(1);
    expect(user.identities![0]).toMatchObject({ id: user.id, user_id: user.id, provider: 'email', email });
    expect(user.identities![0]!.identity_data).toMatchObject({
      sub: user.id,
      email,
      email_verified: false,
      name: 'Ada',
    });

    const db = await adminDb();
    try {
      const row = await db.query<{ encrypted_password: string }>(
        'select encrypted_password from auth.users where id = $1',
        [user.id],
      );
      // bcrypt, cost 10, as GoTrue stores it.
      expect(row.rows[0]!.encrypted_password).toMatch(/^\$2[aby]\$10\$/);
    } finally {
      await db.end();
    }
  });

  it('issues an access token with the claims GoTrue writes', async () => {
    const { session, user, email } = await signedInClient('claims');
    const claims = claimsOf(session.access_token);
    expect(claims).toMatchObject({
      sub: user.id,
      role: 'authenticated',
      aud: 'authenticated',
      iss: `${backendInfo().url}/auth/v1`,
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: {},
      aal: 'aal1',
      is_anonymous: false,
    });
    expect(claims.exp).toBe((claims.iat as number) + 3600);
    expect(claims.exp).toBe(session.expires_at);
    expect(typeof claims.session_id).toBe('string');
    expect(claims.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) as number }]);
    const header = JSON.parse(Buffer.from(session.access_token.split('.')[0]!, 'base64url').toString()) as unknown;
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('signs in with a password, reads and updates the user', async () => {
    const { email, password } = await signedInClient('signin');
    const client = anonClient();
    const signIn = await client.auth.signInWithPassword({ email: email.toUpperCase(), password });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.email).toBe(email);
    expect(signIn.data.user?.last_sign_in_at).toBeTruthy();

    const got = await client.auth.getUser();
    expect(got.error).toBeNull();
    expect(got.data.user?.id).toBe(signIn.data.user?.id);
    // getClaims verifies an HS256 token through GET /user.
    const claims = await client.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.sub).toBe(signIn.data.user?.id);

    const withData = await client.auth.updateUser({ data: { colour: 'teal', name: 'Grace' } });
    expect(withData.error).toBeNull();
    expect(withData.data.user?.user_metadata).toEqual({ colour: 'teal', name: 'Grace' });
    // null removes a key; other keys stay (GoTrue merges metadata).
    const removed = await client.auth.updateUser({ data: { name: null } });
    expect(removed.data.user?.user_metadata).toEqual({ colour: 'teal' });

    const newEmail = uniqueEmail('moved');
    const moved = await client.auth.updateUser({ email: newEmail });
    expect(moved.error).toBeNull();
    // GoTrue mails the change (tests/server/conformance/auth-email.test.ts confirms it); until then it is pending.
    expect(moved.data.user?.new_email).toBe(newEmail);
    const confirmed = await serviceClient().auth.admin.updateUserById(moved.data.user!.id, {
      email: newEmail,
      email_confirm: true,
    });
    expect(confirmed.error).toBeNull();

    const changed = await client.auth.updateUser({ password: 'another-password' });
    expect(changed.error).toBeNull();
    const old = await anonClient().auth.signInWithPassword({ email: newEmail, password });
    expect(old.error?.code).toBe('invalid_credentials');
    const fresh = await anonClient().auth.signInWithPassword({ email: newEmail, password: 'another-password' });
    expect(fresh.error).toBeNull();
  });

  it('refuses a same password, a taken email and app_metadata on PUT /user', async () => {
    const { client, password } = await signedInClient('putuser');
    const other = await signedInClient('taken');
    const same = await client.auth.updateUser({ password });
    expect(same.error).toMatchObject({ status: 422, code: 'same_password' });
    const taken = await client.auth.updateUser({ email: other.email });
    expect(taken.error).toMatchObject({ status: 422, code: 'email_exists' });
    const token = (await client.auth.getSession()).data.session!.access_token;
    const admin = await authFetch('/user', { method: 'PUT', token, body: { app_metadata: { role: 'admin' } } });
    expect(admin.status).toBe(403);
    expect(admin.json).toMatchObject({ code: 'not_admin' });
    const weak = await client.auth.updateUser({ password: '123' });
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError);
  });

  it('seed.sql is safe to run again: still one demo user with one identity', async () => {
    const db = await adminDb();
    try {
      await db.query('begin');
      await db.query(readFileSync(path.resolve('supabase/seed.sql'), 'utf8'));
      await db.query(readFileSync(path.resolve('supabase/seed.sql'), 'utf8'));
      const users = await db.query(`select id from auth.users where email = 'demo@chartroom.dev'`);
      expect(users.rowCount).toBe(1);
      const identities = await db.query(`select 1 from auth.identities where user_id = $1`, [
        (users.rows[0] as { id: string }).id,
      ]);
      expect(identities.rowCount).toBe(1);
    } finally {
      await db.query('rollback');
      await db.end();
    }
  });

  it('signs in the seeded demo user', async () => {
    const { data, error } = await anonClient().auth.signInWithPassword({
      email: 'demo@chartroom.dev',
      password: 'chartroom-demo',
    });
    expect(error).toBeNull();
    expect(data.user?.email).toBe('demo@chartroom.dev');
    expect(data.user?.identities?.[0]?.provider).toBe('email');
  });
});

describe('auth: anonymous users', () => {
  it('signs in anonymously and converts to a permanent user by email', async () => {
    const client = anonClient();
    const { data, error } = await client.auth.signInAnonymously({ options: { data: { colour: 'red' } } });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      is_anonymous: true,
      email: '',
      role: 'authenticated',
      app_metadata: {},
      user_metadata: { colour: 'red' },
    });
    expect(data.user?.identities).toEqual([]);
    const claims = claimsOf(data.session!.access_token);
    expect(claims).toMatchObject({ role: 'authenticated', is_anonymous: true, app_metadata: {} });
    expect((claims.amr as { method: string }[])[0]?.method).toBe('anonymous');

    const noEmail = await client.auth.updateUser({ password: 'guest-password' });
    expect(noEmail.error).toMatchObject({ status: 422, code: 'validation_failed' });

    const email = uniqueEmail('converted');
    const converted = await client.auth.updateUser({ email });
    expect(converted.error).toBeNull();
    expect(converted.data.user).toMatchObject({ email, is_anonymous: false, app_metadata: { provider: 'email' } });
    const withPassword = await client.auth.updateUser({ password: 'guest-password' });
    expect(withPassword.error).toBeNull();
    const signIn = await anonClient().auth.signInWithPassword({ email, password: 'guest-password' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.id).toBe(data.user?.id);
  });
});

describe('auth: errors in GoTrue codes', () => {
  it('answers a wrong password and an unknown email alike', async () => {
    const { email } = await signedInClient('wrongpw');
    const wrong = await anonClient().auth.signInWithPassword({ email, password: 'not-the-password' });
    expect(wrong.error).toBeInstanceOf(AuthApiError);
    expect(wrong.error).toMatchObject({
      status: 400,
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
    const unknown = await anonClient().auth.signInWithPassword({
      email: uniqueEmail('nobody'),
      password: 'whatever-1',
    });
    expect(unknown.error).toMatchObject({
      status: 400,
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
  });

  it('refuses a registered email, a weak password and a malformed email', async () => {
    const { email } = await signedInClient('dup');
    const dup = await anonClient().auth.signUp({ email, password: 'secret-123' });
    expect(dup.error).toMatchObject({ status: 422, code: 'user_already_exists', message: 'User already registered' });

    const weak = await anonClient().auth.signUp({ email: uniqueEmail('weak'), password: '12345' });
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError);
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password', reasons: ['length'] });
    const raw = await authFetch('/signup', { method: 'POST', body: { email: uniqueEmail('weak'), password: '12' } });
    expect(raw.json).toEqual({
      code: 'weak_password',
      message: 'Password should be at least 6 characters.',
      weak_password: { reasons: ['length'] },
    });

    const bad = await anonClient().auth.signUp({ email: 'not-an-email', password: 'secret-123' });
    expect(bad.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'Unable to validate email address: invalid format',
    });
  });

  it('uses the current shape with the API version header and the legacy shape without', async () => {
    const body = { email: uniqueEmail('shape'), password: 'wrong-password' };
    const current = await authFetch('/token?grant_type=password', { method: 'POST', body });
    expect(current.status).toBe(400);
    expect(current.json).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    expect(current.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(current.headers.get('x-sb-error-code')).toBe('invalid_credentials');

    const legacy = await authFetch('/token?grant_type=password', { method: 'POST', body, legacy: true });
    expect(legacy.status).toBe(400);
    expect(legacy.json).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    expect(legacy.headers.get('x-supabase-api-version')).toBeNull();
  });

  it('answers bad_json, unsupported grants and missing credentials', async () => {
    const broken = await authFetch('/token?grant_type=password', { method: 'POST', rawBody: '{"email": "a@b.c",' });
    expect(broken.status).toBe(400);
    expect(broken.json?.code).toBe('bad_json');
    const notObject = await authFetch('/signup', { method: 'POST', rawBody: '[1,2,3]' });
    expect(notObject.json?.code).toBe('bad_json');
    const wrongType = await authFetch('/signup', { method: 'POST', body: { email: 42, password: 'secret-123' } });
    expect(wrongType.json?.code).toBe('bad_json');
    const grant = await authFetch('/token?grant_type=magic', { method: 'POST', body: {} });
    expect(grant.status).toBe(400);
    expect(grant.json).toEqual({ code: 'invalid_credentials', message: 'unsupported_grant_type' });
    const missing = await authFetch('/token?grant_type=password', { method: 'POST', body: { password: 'x' } });
    expect(missing.json).toEqual({ code: 'validation_failed', message: 'missing email or phone' });
  });

  it('guards /user: no bearer 401, anon key and forged tokens 403 bad_jwt, logged-out session 403', async () => {
    const none = await authFetch('/user', { token: null });
    expect(none.status).toBe(401);
    expect(none.json?.code).toBe('no_authorization');
    const anon = await authFetch('/user');
    expect(anon.status).toBe(403);
    expect(anon.json).toEqual({ code: 'bad_jwt', message: 'invalid claim: missing sub claim' });

    const { client, session } = await signedInClient('loggedout');
    const out = await client.auth.signOut();
    expect(out.error).toBeNull();
    const dead = await authFetch('/user', { token: session.access_token });
    expect(dead.status).toBe(403);
    expect(dead.json).toEqual({
      code: 'session_not_found',
      message: 'Session from session_id claim in JWT does not exist',
    });
    // supabase-js turns session_not_found into its "session missing" error.
    const viaClient = await anonClient().auth.getUser(session.access_token);
    expect(viaClient.error?.name).toBe('AuthSessionMissingError');
  });

  it('answers 403 user_not_found for a token whose user was deleted', async () => {
    const { session, user } = await signedInClient('deleted');
    const db = await adminDb();
    try {
      await db.query('delete from auth.users where id = $1', [user.id]);
    } finally {
      await db.end();
    }
    const gone = await authFetch('/user', { token: session.access_token });
    expect(gone.status).toBe(403);
    expect(gone.json?.code).toBe('user_not_found');
  });
});

describe('auth: health and settings', () => {
  it('reports health and settings', async () => {
    const health = await authFetch('/health', { token: null });
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      name: 'GoTrue',
      version: expect.any(String) as string,
      description: expect.any(String) as string,
    });
    const settings = await authFetch('/settings');
    expect(settings.status).toBe(200);
    expect(settings.json).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: true,
      external: { email: true, anonymous_users: true, phone: false },
    });
    const keys = await authFetch('/.well-known/jwks.json');
    expect(keys.json).toEqual({ keys: [] });
    const unknown = await authFetch('/nope');
    expect(unknown.status).toBe(404);
  });
});

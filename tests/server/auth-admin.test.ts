import { describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { anonClient, backendInfo, serviceClient, signedInClient, uniqueEmail } from '../setup/clients.ts';
import { authFetch } from './auth-helpers.ts';

describe('auth admin API as service_role', () => {
  it('creates, reads, updates and deletes users', async () => {
    const admin = serviceClient().auth.admin;
    const email = uniqueEmail('admin-made');
    const created = await admin.createUser({
      email,
      password: 'admin-secret',
      email_confirm: true,
      user_metadata: { team: 'blue' },
      app_metadata: { plan: 'pro' },
    });
    expect(created.error).toBeNull();
    const user = created.data.user!;
    expect(user).toMatchObject({
      email,
      user_metadata: { team: 'blue' },
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
    });
    expect(user.email_confirmed_at).toBeTruthy();
    expect((await anonClient().auth.signInWithPassword({ email, password: 'admin-secret' })).error).toBeNull();

    const got = await admin.getUserById(user.id);
    expect(got.data.user?.email).toBe(email);

    const updated = await admin.updateUserById(user.id, {
      user_metadata: { team: null, name: 'Ida' },
      app_metadata: { plan: 'free' },
      password: 'changed-secret',
    });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toEqual({ name: 'Ida' });
    expect(updated.data.user?.app_metadata).toMatchObject({ plan: 'free', provider: 'email' });
    expect((await anonClient().auth.signInWithPassword({ email, password: 'changed-secret' })).error).toBeNull();

    const banned = await admin.updateUserById(user.id, { ban_duration: '24h' });
    expect(banned.data.user?.banned_until).toBeTruthy();
    const refused = await anonClient().auth.signInWithPassword({ email, password: 'changed-secret' });
    expect(refused.error).toMatchObject({ status: 400, code: 'user_banned' });
    await admin.updateUserById(user.id, { ban_duration: 'none' });
    const { data: signedIn } = await anonClient().auth.signInWithPassword({ email, password: 'changed-secret' });
    expect(signedIn.session).toBeTruthy();

    const deleted = await admin.deleteUser(user.id);
    expect(deleted.error).toBeNull();
    const after = await admin.getUserById(user.id);
    expect(after.error).toMatchObject({ status: 404, code: 'user_not_found', message: 'User not found' });
    const token = await authFetch('/user', { token: signedIn.session!.access_token });
    expect(token.json?.code).toBe('user_not_found');
  });

  it('soft-deletes: keeps the row, frees the address, ends the sessions', async () => {
    const admin = serviceClient().auth.admin;
    const { user, email, session } = await signedInClient('soft');
    const soft = await admin.deleteUser(user.id, true);
    expect(soft.error).toBeNull();
    const row = await admin.getUserById(user.id);
    expect(row.data.user?.deleted_at).toBeTruthy();
    expect(row.data.user?.email).toBe('');
    expect((await authFetch('/user', { token: session.access_token })).json?.code).toBe('session_not_found');
    const again = await anonClient().auth.signUp({ email, password: 'secret-123' });
    expect(again.error).toBeNull();
    expect(again.data.user?.id).not.toBe(user.id);
  });

  it('lists users page by page with pagination headers', async () => {
    for (let i = 0; i < 3; i += 1) await signedInClient('listed');
    const admin = serviceClient().auth.admin;
    const total = (data: unknown) => (data as { total: number }).total;
    // Other files sign users up meanwhile, which shifts the newest-first pages: compare two
    // pages only when no one was added between the two reads (same total), else read again.
    let page = await admin.listUsers({ page: 1, perPage: 2 });
    let second = await admin.listUsers({ page: 2, perPage: 2 });
    for (let i = 0; i < 20 && total(page.data) !== total(second.data); i += 1) {
      page = await admin.listUsers({ page: 1, perPage: 2 });
      second = await admin.listUsers({ page: 2, perPage: 2 });
    }
    expect(page.error).toBeNull();
    expect(page.data.users).toHaveLength(2);
    expect(page.data).toMatchObject({ aud: 'authenticated', nextPage: 2 });
    expect(total(page.data)).toBeGreaterThanOrEqual(3);
    expect(total(second.data)).toBe(total(page.data));
    expect(second.data.users[0]?.id).not.toBe(page.data.users[0]?.id);

    const raw = await authFetch('/admin/users?page=1&per_page=2', { token: backendInfo().serviceRoleKey });
    expect(Number(raw.headers.get('x-total-count'))).toBeGreaterThanOrEqual(3);
    expect(raw.headers.get('link')).toMatch(
      /<[^>]+\/auth\/v1\/admin\/users\?page=2&per_page=2>; rel="next", <[^>]+>; rel="last"/,
    );
    const bad = await authFetch('/admin/users?page=-1', { token: backendInfo().serviceRoleKey });
    expect(bad.status).toBe(400);
    expect(bad.json?.code).toBe('validation_failed');
  });

  it('answers GoTrue errors for bad admin input', async () => {
    const admin = serviceClient().auth.admin;
    const { email } = await signedInClient('admin-dup');
    const dup = await admin.createUser({ email, password: 'secret-123' });
    expect(dup.error).toMatchObject({
      status: 422,
      code: 'email_exists',
      message: 'A user with this email address has already been registered',
    });
    const nothing = await admin.createUser({ password: 'secret-123' });
    expect(nothing.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'Cannot create a user without either an email or phone',
    });
    const notUuid = await authFetch('/admin/users/not-a-uuid', { token: backendInfo().serviceRoleKey });
    expect(notUuid.status).toBe(404);
    expect(notUuid.json).toEqual({ code: 'validation_failed', message: 'user_id must be an UUID' });
    const missing = await admin.getUserById('00000000-0000-4000-8000-000000000000');
    expect(missing.error).toMatchObject({ status: 404, code: 'user_not_found' });
    const badBan = await authFetch(`/admin/users/${(await signedInClient('ban')).user.id}`, {
      method: 'PUT',
      token: backendInfo().serviceRoleKey,
      body: { ban_duration: 'forever' },
    });
    expect(badBan.status).toBe(400);
    expect(badBan.json?.code).toBe('validation_failed');
  });
});

describe('auth admin API with a supabase_admin token', () => {
  it('accepts it, as GoTrue does, while REST still refuses that role', async () => {
    const { jwtSecret, url, anonKey } = backendInfo();
    const admin = signJwt(
      { role: 'supabase_admin', iss: 'supabase-demo', exp: Math.floor(Date.now() / 1000) + 60 },
      jwtSecret,
    );
    const { user } = await signedInClient('by-supabase-admin');
    const got = await authFetch(`/admin/users/${user.id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(got.json?.id).toBe(user.id);
    const rest = await fetch(`${url}/rest/v1/projects?select=id`, {
      headers: { apikey: anonKey, authorization: `Bearer ${admin}` },
    });
    expect(rest.status).toBe(401);
  });
});

describe('auth admin API refuses everyone else', () => {
  it('403 not_admin for the anon key and a user token, 401 without a bearer, 403 bad_jwt when forged', async () => {
    const asAnon = await anonClient().auth.admin.listUsers();
    expect(asAnon.error).toMatchObject({ status: 403, code: 'not_admin', message: 'User not allowed' });

    const { session, user } = await signedInClient('not-admin');
    const asUser = await authFetch(`/admin/users/${user.id}`, { method: 'DELETE', token: session.access_token });
    expect(asUser.status).toBe(403);
    expect(asUser.json).toEqual({ code: 'not_admin', message: 'User not allowed' });
    expect((await serviceClient().auth.admin.getUserById(user.id)).data.user?.id).toBe(user.id);

    const none = await authFetch('/admin/users', { token: null });
    expect(none.status).toBe(401);
    expect(none.json?.code).toBe('no_authorization');

    const forged = signJwt(
      { role: 'service_role', iss: 'supabase-demo' },
      'a-different-secret-that-is-at-least-32-chars',
    );
    const withForged = await authFetch('/admin/users', { token: forged });
    expect(withForged.status).toBe(403);
    expect(withForged.json?.code).toBe('bad_jwt');
    const legacy = await authFetch('/admin/users', { token: forged, legacy: true });
    expect(legacy.json).toMatchObject({ code: 403, error_code: 'bad_jwt' });
  });
});

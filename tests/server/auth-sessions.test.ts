import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminDb, anonClient, signedInClient, uniqueEmail } from '../setup/clients.ts';
import { authFetch, claimsOf, manualClock, secondGateway } from './auth-helpers.ts';

async function signIn(email: string, password: string) {
  const client = anonClient();
  const { data, error } = await client.auth.signInWithPassword({ email, password });
  if (error || !data.session) throw error ?? new Error('no session');
  return { client, session: data.session };
}

async function refresh(refreshToken: string) {
  return anonClient().auth.refreshSession({ refresh_token: refreshToken });
}

describe('auth: refresh token rotation', () => {
  it('rotates: the old token is revoked and is the parent of the new one', async () => {
    const { session } = await signedInClient('rotate');
    const { data, error } = await refresh(session.refresh_token);
    expect(error).toBeNull();
    const next = data.session!;
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect(next.refresh_token).toMatch(/^[a-z0-9]{12}$/);
    expect(claimsOf(next.access_token).session_id).toBe(claimsOf(session.access_token).session_id);
    expect(data.user?.id).toBe(session.user.id);

    const db = await adminDb();
    try {
      const rows = await db.query<{ token: string; revoked: boolean; parent: string | null }>(
        'select token, revoked, parent from auth.refresh_tokens where token = any($1) order by id',
        [[session.refresh_token, next.refresh_token]],
      );
      expect(rows.rows).toEqual([
        { token: session.refresh_token, revoked: true, parent: null },
        { token: next.refresh_token, revoked: false, parent: session.refresh_token },
      ]);
    } finally {
      await db.end();
    }
  });

  it('re-presenting a rotated token within the reuse interval returns the active child', async () => {
    const { session } = await signedInClient('reuse');
    const first = await refresh(session.refresh_token);
    const child = first.data.session!.refresh_token;
    const again = await refresh(session.refresh_token);
    expect(again.error).toBeNull();
    expect(again.data.session?.refresh_token).toBe(child);
    // The child still works and rotates normally.
    const onward = await refresh(child);
    expect(onward.error).toBeNull();
    expect(onward.data.session?.refresh_token).not.toBe(child);
  });

  it('serialises concurrent refreshes of one token: every caller gets the same child', async () => {
    const { session } = await signedInClient('race');
    const results = await Promise.all(Array.from({ length: 5 }, () => refresh(session.refresh_token)));
    for (const r of results) expect(r.error).toBeNull();
    const children = new Set(results.map((r) => r.data.session?.refresh_token));
    expect(children.size).toBe(1);
    const db = await adminDb();
    try {
      const active = await db.query('select 1 from auth.refresh_tokens where session_id = $1 and revoked = false', [
        claimsOf(session.access_token).session_id,
      ]);
      expect(active.rowCount).toBe(1);
    } finally {
      await db.end();
    }
  });

  it('answers refresh_token_not_found, validation_failed and the OAuth shape for bad tokens', async () => {
    const unknown = await refresh('abcdefghijkl');
    expect(unknown.error).toMatchObject({
      status: 400,
      code: 'refresh_token_not_found',
      message: 'Invalid Refresh Token: Refresh Token Not Found',
    });
    const malformed = await authFetch('/token?grant_type=refresh_token', {
      method: 'POST',
      body: { refresh_token: 'short' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ code: 'validation_failed', message: 'Refresh token is not valid' });
    const empty = await authFetch('/token?grant_type=refresh_token', { method: 'POST', body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ error: 'invalid_request', error_description: 'refresh_token required' });
  });
});

describe('auth: reuse outside the interval (second gateway, manual clock)', () => {
  const clock = manualClock();
  let gateway: Awaited<ReturnType<typeof secondGateway>>;
  beforeAll(async () => {
    gateway = await secondGateway({ auth: { now: clock.now } });
  });
  afterAll(async () => {
    await gateway.backend.stop();
  });

  it('destroys the session and answers refresh_token_already_used', async () => {
    const client = gateway.client();
    const email = uniqueEmail('stolen');
    const signUp = await client.auth.signUp({ email, password: 'secret-123' });
    const original = signUp.data.session!;
    const rotated = await client.auth.refreshSession({ refresh_token: original.refresh_token });
    const child = rotated.data.session!;

    clock.advance(11_000);
    const replay = await gateway.client().auth.refreshSession({ refresh_token: original.refresh_token });
    expect(replay.error).toMatchObject({
      status: 400,
      code: 'refresh_token_already_used',
      message: 'Invalid Refresh Token: Already Used',
    });

    // The whole session is gone: the child token and the access tokens die with it.
    const childAfter = await gateway.client().auth.refreshSession({ refresh_token: child.refresh_token });
    expect(childAfter.error?.code).toBe('refresh_token_not_found');
    const user = await authFetch('/user', { token: child.access_token, base: gateway.backend.url });
    expect(user.status).toBe(403);
    expect(user.json?.code).toBe('session_not_found');
  });

  it('still honours a reuse inside the interval on the same clock', async () => {
    const client = gateway.client();
    const signUp = await client.auth.signUp({ email: uniqueEmail('inside'), password: 'secret-123' });
    const original = signUp.data.session!;
    const rotated = await client.auth.refreshSession({ refresh_token: original.refresh_token });
    clock.advance(9_000);
    const replay = await gateway.client().auth.refreshSession({ refresh_token: original.refresh_token });
    expect(replay.error).toBeNull();
    expect(replay.data.session?.refresh_token).toBe(rotated.data.session?.refresh_token);
  });
});

describe('auth: logout scopes across sessions of one user', () => {
  it('others, local and global end exactly the sessions they name', async () => {
    const { email, password } = await signedInClient('scopes');
    const a = await signIn(email, password);
    const b = await signIn(email, password);
    const c = await signIn(email, password);
    const alive = async (s: { access_token: string }) =>
      (await authFetch('/user', { token: s.access_token })).status === 200;

    const others = await a.client.auth.signOut({ scope: 'others' });
    expect(others.error).toBeNull();
    expect(await alive(a.session)).toBe(true);
    expect(await alive(b.session)).toBe(false);
    expect(await alive(c.session)).toBe(false);
    expect((await refresh(b.session.refresh_token)).error?.code).toBe('refresh_token_not_found');

    const d = await signIn(email, password);
    const local = await authFetch('/logout?scope=local', { method: 'POST', token: a.session.access_token });
    expect(local.status).toBe(204);
    expect(await alive(a.session)).toBe(false);
    expect(await alive(d.session)).toBe(true);

    const e = await signIn(email, password);
    const global = await authFetch('/logout?scope=global', { method: 'POST', token: e.session.access_token });
    expect(global.status).toBe(204);
    expect(await alive(d.session)).toBe(false);
    expect(await alive(e.session)).toBe(false);
    expect((await refresh(e.session.refresh_token)).error?.code).toBe('refresh_token_not_found');
  });

  it('refuses an unknown scope and a logout without a bearer', async () => {
    const { session } = await signedInClient('badscope');
    const bad = await authFetch('/logout?scope=everyone', { method: 'POST', token: session.access_token });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ code: 'validation_failed', message: 'Unsupported logout scope "everyone"' });
    const none = await authFetch('/logout', { method: 'POST', token: null });
    expect(none.status).toBe(401);
    expect(none.json?.code).toBe('no_authorization');
  });
});

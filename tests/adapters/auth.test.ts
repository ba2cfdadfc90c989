import { createClient } from '@supabase/supabase-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createAuthAdapter } from '../../src/adapters/supabase/auth.ts';
import type { AuthEvent } from '../../src/lib/ports/auth.ts';
import { anonClient, backendInfo, uniqueEmail } from '../setup/clients.ts';
import { freePort } from '../setup/ports.ts';

/**
 * The auth adapter against the real embedded backend through the real supabase-js client:
 * every fact the session machine depends on must come out of the stream as a domain event.
 */

const PASSWORD = 'correct-horse-battery';
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** Collects the adapter's facts for assertions. */
function record(adapter: ReturnType<typeof createAuthAdapter>) {
  const seen: AuthEvent[] = [];
  const subscription = adapter.authEvents$.subscribe((event) => seen.push(event));
  stops.push(() => subscription.unsubscribe());
  const next = (type: AuthEvent['type'], after = 0) =>
    vi.waitFor(() => {
      const found = seen.slice(after).find((event) => event.type === type);
      if (!found) throw new Error(`no ${type} yet; saw ${seen.map((e) => e.type).join(', ')}`);
      return found;
    });
  return { seen, next };
}

/** A localStorage stand-in shared by two clients: the same browser profile before and after a reload. */
function sharedStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
    keys: () => [...items.keys()],
  };
}

function persistentClient(storage: ReturnType<typeof sharedStorage>, fetchImpl?: typeof fetch) {
  const { url, anonKey } = backendInfo();
  return createClient(url, anonKey, {
    auth: { persistSession: true, storage, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
    ...(fetchImpl ? { global: { fetch: fetchImpl } } : {}),
  });
}

describe('auth adapter (real backend)', () => {
  it('reports no restored session for a fresh client', async () => {
    const { next } = record(createAuthAdapter(anonClient()));
    expect(await next('auth.sessionRestored')).toEqual({ type: 'auth.sessionRestored', session: null });
  });

  it('signs up, then reports the signed-in fact with a plain user', async () => {
    const adapter = createAuthAdapter(anonClient());
    const { next } = record(adapter);
    await next('auth.sessionRestored');
    const email = uniqueEmail('adapter');
    const result = await adapter.signUp({ email, password: PASSWORD });
    expect(result.ok && result.session?.user).toMatchObject({ email, isAnonymous: false });
    const fact = await next('auth.signedIn');
    expect(fact).toMatchObject({ type: 'auth.signedIn', session: { user: { email, isAnonymous: false } } });
    // Only the port's plain shape crosses: no tokens, no Supabase user object.
    expect(Object.keys((fact as Extract<AuthEvent, { type: 'auth.signedIn' }>).session).sort()).toEqual([
      'expiresAt',
      'user',
    ]);
  });

  it('maps wrong credentials, duplicate accounts and weak passwords to clear messages', async () => {
    const adapter = createAuthAdapter(anonClient());
    const email = uniqueEmail('errors');
    expect(await adapter.signUp({ email, password: PASSWORD })).toMatchObject({ ok: true });
    expect(await adapter.signIn({ email, password: 'not-the-password' })).toEqual({
      ok: false,
      error: { code: 'invalid_credentials', message: 'Wrong email or password' },
    });
    expect(await adapter.signUp({ email, password: PASSWORD })).toMatchObject({
      ok: false,
      error: { code: 'user_already_exists' },
    });
    const weak = await adapter.signUp({ email: uniqueEmail('weak'), password: '123' });
    expect(weak).toMatchObject({ ok: false, error: { code: 'weak_password' } });
    expect(!weak.ok && weak.error.message).toMatch(/^Choose a stronger password/);
  });

  it('signs in with the password chosen at sign-up', async () => {
    const email = uniqueEmail('again');
    expect(await createAuthAdapter(anonClient()).signUp({ email, password: PASSWORD })).toMatchObject({ ok: true });
    const adapter = createAuthAdapter(anonClient());
    const { next } = record(adapter);
    const result = await adapter.signIn({ email, password: PASSWORD });
    expect(result).toMatchObject({ ok: true, session: { user: { email } } });
    expect(await next('auth.signedIn')).toMatchObject({ session: { user: { email } } });
  });

  it('signs in a guest as an anonymous user without an email', async () => {
    const adapter = createAuthAdapter(anonClient());
    const { next } = record(adapter);
    const result = await adapter.signInAnonymously();
    expect(result).toMatchObject({ ok: true, session: { user: { email: null, isAnonymous: true } } });
    expect(await next('auth.signedIn')).toMatchObject({ session: { user: { isAnonymous: true } } });
  });

  it('reports refreshed tokens', async () => {
    const client = anonClient();
    const adapter = createAuthAdapter(client);
    const { next } = record(adapter);
    await adapter.signUp({ email: uniqueEmail('refresh'), password: PASSWORD });
    await next('auth.signedIn');
    const { error } = await client.auth.refreshSession();
    expect(error).toBeNull();
    expect(await next('auth.tokenRefreshed')).toMatchObject({
      type: 'auth.tokenRefreshed',
      session: { user: { isAnonymous: false } },
    });
  });

  it('restores a persisted session in a new client, as after a reload', async () => {
    const storage = sharedStorage();
    const email = uniqueEmail('reload');
    const first = createAuthAdapter(persistentClient(storage));
    expect(await first.signUp({ email, password: PASSWORD })).toMatchObject({ ok: true });
    const { next } = record(createAuthAdapter(persistentClient(storage)));
    expect(await next('auth.sessionRestored')).toMatchObject({ session: { user: { email } } });
  });

  it('signs out: the fact arrives and the refresh token is revoked on the server', async () => {
    const client = anonClient();
    const adapter = createAuthAdapter(client);
    const { next } = record(adapter);
    await adapter.signUp({ email: uniqueEmail('out'), password: PASSWORD });
    await next('auth.signedIn');
    const refreshToken = (await client.auth.getSession()).data.session?.refresh_token;
    expect(refreshToken).toBeTruthy();
    await adapter.signOut();
    expect(await next('auth.signedOut')).toEqual({ type: 'auth.signedOut' });
    expect((await client.auth.getSession()).data.session).toBeNull();
    const reuse = await anonClient().auth.refreshSession({ refresh_token: refreshToken ?? '' });
    expect(reuse.error).not.toBeNull();
  });

  it('still signs out this device when the server cannot be reached', async () => {
    let offline = false;
    const storage = sharedStorage();
    const client = persistentClient(storage, (input, init) =>
      offline ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init),
    );
    const adapter = createAuthAdapter(client);
    const { next } = record(adapter);
    await adapter.signUp({ email: uniqueEmail('offline'), password: PASSWORD });
    await next('auth.signedIn');
    expect(storage.keys().filter((key) => key.endsWith('-auth-token'))).toHaveLength(1);
    offline = true;
    await adapter.signOut();
    expect(await next('auth.signedOut')).toEqual({ type: 'auth.signedOut' });
    expect((await client.auth.getSession()).data.session).toBeNull();
    // A reload would find nothing to restore.
    expect(storage.keys().filter((key) => key.endsWith('-auth-token'))).toEqual([]);
  });

  it('reports an unreachable server as a network failure', async () => {
    const port = await freePort();
    const client = createClient(`http://127.0.0.1:${port}`, backendInfo().anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    const result = await createAuthAdapter(client).signIn({ email: uniqueEmail('net'), password: PASSWORD });
    expect(result).toEqual({
      ok: false,
      error: { code: 'network', message: "Can't reach the server. Check your connection and try again." },
    });
  });
});

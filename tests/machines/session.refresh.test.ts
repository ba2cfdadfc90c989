import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { sessionMachine } from '../../machines/account/session.machine.ts';
import { fakeAuth, guest, member } from './session.fakes.ts';

/**
 * The access token's life ("refreshing; an expired refresh token leads back to
 * sign-in with a message, never a blank screen"), with fake timers for the expiry.
 */

const NOW = 1_900_000_000_000;
const expiringIn = (seconds: number) => ({ ...member, expiresAt: NOW / 1000 + seconds });

function start() {
  const auth = fakeAuth();
  const actor = createActor(sessionMachine.provide({ actors: auth.actors })).start();
  return { auth, actor, snap: () => actor.getSnapshot() };
}

describe('session refresh', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: NOW });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refreshes when the token expired without a refresh, and carries on', async () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: expiringIn(60) });
    await vi.advanceTimersByTimeAsync(0);
    expect(snap().matches({ signedIn: 'active' })).toBe(true);
    await vi.advanceTimersByTimeAsync(64_999);
    expect(auth.isOpen('refreshSession')).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(snap().hasTag('refreshing')).toBe(true);
    expect(snap().hasTag('authenticated')).toBe(true);
    await auth.settle('refreshSession', { ok: true, session: expiringIn(3600) });
    expect(snap().matches({ signedIn: 'active' })).toBe(true);
    expect(snap().context.expiresAt).toBe(NOW / 1000 + 3600);
  });

  it('a refresh by supabase-js restarts the expiry clock', async () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: expiringIn(60) });
    await vi.advanceTimersByTimeAsync(30_000);
    auth.emit({ type: 'auth.tokenRefreshed', session: { ...member, expiresAt: NOW / 1000 + 3630 } });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(snap().matches({ signedIn: 'active' })).toBe(true);
    expect(auth.isOpen('refreshSession')).toBe(false);
  });

  it('an expired or revoked refresh token leads back to sign-in with a message', async () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: expiringIn(0) });
    await vi.advanceTimersByTimeAsync(5_000);
    await auth.settle('refreshSession', { ok: false, error: { code: 'session_expired', message: 'gone' } });
    expect(snap().matches({ signedOut: 'idle' })).toBe(true);
    expect(snap().context.user).toBeNull();
    expect(snap().context.notice).toBe('Your session has expired. Sign in again to continue.');
  });

  it('retries after a network failure, and treats a sign-out mid-refresh as an expiry', async () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: { ...guest, expiresAt: NOW / 1000 } });
    await vi.advanceTimersByTimeAsync(5_000);
    await auth.settle('refreshSession', { ok: false, error: { code: 'network', message: 'offline' } });
    expect(snap().matches({ guest: 'waitingToRetry' })).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(snap().matches({ guest: 'refreshing' })).toBe(true);
    auth.emit({ type: 'auth.signedOut' });
    await vi.advanceTimersByTimeAsync(0);
    expect(snap().matches({ signedOut: 'idle' })).toBe(true);
    expect(snap().context.notice).toBe('Your session has expired. Sign in again to continue.');
  });

  it('says so when signed out from elsewhere, and when a stored session could not be restored', async () => {
    const first = start();
    first.auth.emit({ type: 'auth.sessionRestored', session: member });
    first.auth.emit({ type: 'auth.signedOut' });
    await vi.advanceTimersByTimeAsync(0);
    expect(first.snap().context.notice).toMatch(/^You were signed out/);

    const second = start();
    second.auth.emit({ type: 'auth.signedOut' });
    second.auth.emit({ type: 'auth.sessionRestored', session: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(second.snap().matches({ signedOut: 'idle' })).toBe(true);
    expect(second.snap().context.notice).toBe('Your session has expired. Sign in again to continue.');
  });
});

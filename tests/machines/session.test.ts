import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { sessionMachine } from '../../machines/account/session.machine.ts';
import { fakeAuth, guest, member, otherMember, wrongPassword } from './session.fakes.ts';

function start() {
  const auth = fakeAuth();
  const actor = createActor(sessionMachine.provide({ actors: auth.actors }));
  actor.start();
  return { auth, actor, snap: () => actor.getSnapshot() };
}

describe('session machine', () => {
  it('waits for the restored session before choosing a mode', () => {
    const { snap, auth } = start();
    expect(snap().hasTag('restoring')).toBe(true);
    auth.emit({ type: 'auth.sessionRestored', session: null });
    expect(snap().matches({ signedOut: 'idle' })).toBe(true);
  });

  it('restores a persisted member session after a reload', () => {
    const { snap, auth } = start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    expect(snap().matches('signedIn')).toBe(true);
    expect(snap().context.user).toEqual(member.user);
  });

  it('restores a guest session as guest', () => {
    const { snap, auth } = start();
    auth.emit({ type: 'auth.sessionRestored', session: guest });
    expect(snap().matches('guest')).toBe(true);
    expect(snap().hasTag('authenticated')).toBe(true);
  });

  it('signs in: pending until the signed-in fact arrives', async () => {
    const { snap, auth, actor } = start();
    auth.emit({ type: 'auth.sessionRestored', session: null });
    actor.send({ type: 'session.signIn', email: 'ada@example.test', password: 'pw-123456' });
    expect(snap().hasTag('pending')).toBe(true);
    expect(auth.calls).toEqual([{ name: 'signIn', input: { email: 'ada@example.test', password: 'pw-123456' } }]);
    await auth.settle('signIn', { ok: true, session: member });
    expect(snap().hasTag('pending')).toBe(true);
    auth.emit({ type: 'auth.signedIn', session: member });
    expect(snap().matches('signedIn')).toBe(true);
    expect(snap().context.user?.email).toBe('ada@example.test');
  });

  it('shows the failure message and clears it on the next attempt', async () => {
    const { snap, auth, actor } = start();
    auth.emit({ type: 'auth.sessionRestored', session: null });
    actor.send({ type: 'session.signIn', email: 'ada@example.test', password: 'nope' });
    await auth.settle('signIn', wrongPassword);
    expect(snap().matches({ signedOut: 'failed' })).toBe(true);
    expect(snap().context.error).toBe('Wrong email or password');
    actor.send({ type: 'session.signUp', email: 'ada@example.test', password: 'better-pass' });
    expect(snap().matches({ signedOut: 'signingUp' })).toBe(true);
    expect(snap().context.error).toBeNull();
  });

  it('reports an adapter crash as a generic failure rather than hanging', async () => {
    const { snap, auth, actor } = start();
    auth.emit({ type: 'auth.sessionRestored', session: null });
    actor.send({ type: 'session.signInAsGuest' });
    await auth.fail('signInAsGuest', new TypeError('boom'));
    expect(snap().matches({ signedOut: 'failed' })).toBe(true);
    expect(snap().context.error).toBe('Something went wrong. Try again.');
  });

  it('asks for email confirmation when sign-up returns no session', async () => {
    const { snap, auth, actor } = start();
    auth.emit({ type: 'auth.sessionRestored', session: null });
    actor.send({ type: 'session.signUp', email: 'new@example.test', password: 'pw-123456' });
    await auth.settle('signUp', { ok: true, session: null, confirmationSentTo: 'new@example.test' });
    expect(snap().hasTag('notice')).toBe(true);
    expect(snap().context.notice).toContain('new@example.test');
  });

  it('continues as guest', async () => {
    const { snap, auth, actor } = start();
    auth.emit({ type: 'auth.sessionRestored', session: null });
    actor.send({ type: 'session.signInAsGuest' });
    await auth.settle('signInAsGuest', { ok: true, session: guest });
    auth.emit({ type: 'auth.signedIn', session: guest });
    expect(snap().matches('guest')).toBe(true);
    expect(snap().context.user?.isAnonymous).toBe(true);
  });

  it('signs out through the adapter', async () => {
    const { snap, auth, actor } = start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    expect(snap().can({ type: 'session.signOut' })).toBe(true);
    actor.send({ type: 'session.signOut' });
    expect(snap().hasTag('signingOut')).toBe(true);
    expect(snap().can({ type: 'session.signOut' })).toBe(false);
    await auth.settle('signOut', undefined);
    expect(snap().matches({ signedOut: 'idle' })).toBe(true);
    expect(snap().context.user).toBeNull();
  });

  it('follows a sign-out made in another tab', () => {
    const { snap, auth } = start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    auth.emit({ type: 'auth.signedOut' });
    expect(snap().matches({ signedOut: 'idle' })).toBe(true);
    expect(snap().context.user).toBeNull();
  });

  it('follows a sign-in made in another tab, as whoever signed in', () => {
    const { snap, auth } = start();
    auth.emit({ type: 'auth.sessionRestored', session: null });
    auth.emit({ type: 'auth.signedIn', session: otherMember });
    expect(snap().context.user?.email).toBe('bob@example.test');
    auth.emit({ type: 'auth.signedIn', session: member });
    expect(snap().context.user?.email).toBe('ada@example.test');
  });

  it('keeps the user on token refresh and promotes a guest who becomes a member', () => {
    const { snap, auth } = start();
    auth.emit({ type: 'auth.sessionRestored', session: guest });
    auth.emit({ type: 'auth.tokenRefreshed', session: guest });
    expect(snap().matches('guest')).toBe(true);
    auth.emit({
      type: 'auth.userUpdated',
      session: { ...guest, user: { ...guest.user, email: 'g@example.test', isAnonymous: false } },
    });
    expect(snap().matches('signedIn')).toBe(true);
    expect(snap().context.user?.email).toBe('g@example.test');
  });

  it('ignores intents that make no sense in the current mode', () => {
    const { snap, auth, actor } = start();
    actor.send({ type: 'session.signIn', email: 'a@b.c', password: 'x' });
    expect(snap().hasTag('restoring')).toBe(true);
    auth.emit({ type: 'auth.sessionRestored', session: member });
    actor.send({ type: 'session.signInAsGuest' });
    expect(snap().matches('signedIn')).toBe(true);
    expect(auth.calls).toEqual([]);
  });
});

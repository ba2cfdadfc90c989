import { describe, expect, it } from 'vitest';
import { throwError } from 'rxjs';
import { createActor, fromEventObservable } from 'xstate';
import { sessionMachine } from '../../machines/account/session.machine.ts';
import type { OwnProfileFact } from '../../src/lib/ports/profile.ts';
import { fakeAuth, guest, member, named, otherMember } from './session.fakes.ts';

/** The display name the top bar shows: read from the signed-in person's own profile, live. */

function start() {
  const auth = fakeAuth();
  const actor = createActor(sessionMachine.provide({ actors: auth.actors })).start();
  return { auth, actor, snap: () => actor.getSnapshot() };
}

describe('session machine: display name', () => {
  it('watches the member’s own profile and follows each rename', () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    expect(auth.watched).toEqual([member.user.id]);
    expect(snap().context.displayName).toBeNull();
    auth.emitProfile(named(member.user.id, 'Ada'));
    expect(snap().context.displayName).toBe('Ada');
    auth.emitProfile(named(member.user.id, 'Ada Lovelace'));
    expect(snap().context.displayName).toBe('Ada Lovelace');
  });

  it('keeps the name across token refreshes, and forgets it on sign-out', () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    auth.emitProfile(named(member.user.id, 'Ada'));
    auth.emit({ type: 'auth.tokenRefreshed', session: member });
    expect(snap().context.displayName).toBe('Ada');
    expect(auth.watched).toEqual([member.user.id]);
    auth.emit({ type: 'auth.signedOut' });
    expect(snap().context.displayName).toBeNull();
    // No watch outlives the session: a late fact changes nothing.
    auth.emitProfile(named(member.user.id, 'Late'));
    expect(snap().context.displayName).toBeNull();
  });

  it('watches whoever signs in instead when another tab switches the account', () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    auth.emitProfile(named(member.user.id, 'Ada'));
    auth.emit({ type: 'auth.signedIn', session: otherMember });
    expect(snap().matches('signedIn')).toBe(true);
    expect(snap().context.user?.id).toBe(otherMember.user.id);
    expect(snap().context.displayName).toBeNull();
    expect(auth.watched).toEqual([member.user.id, otherMember.user.id]);
    // A fact about someone else (a stale one from the old watch) is not this person's name.
    auth.emitProfile(named(member.user.id, 'Ada again'));
    expect(snap().context.displayName).toBeNull();
    auth.emitProfile(named(otherMember.user.id, 'Bob'));
    expect(snap().context.displayName).toBe('Bob');
  });

  it('names a guest from their profile too, and keeps it when the guest becomes a member', () => {
    const { auth, snap } = start();
    auth.emit({ type: 'auth.sessionRestored', session: guest });
    auth.emitProfile(named(guest.user.id, 'Guest'));
    expect(snap().context.displayName).toBe('Guest');
    auth.emit({
      type: 'auth.userUpdated',
      session: { ...guest, user: { ...guest.user, email: 'g@example.test', isAnonymous: false } },
    });
    expect(snap().matches('signedIn')).toBe(true);
    expect(snap().context.displayName).toBe('Guest');
    expect(auth.watched).toEqual([guest.user.id, guest.user.id]);
  });

  it('keeps the session when the profile stream fails: the views fall back to the email', () => {
    const auth = fakeAuth();
    const refused = fromEventObservable<OwnProfileFact, { userId: string }>(() =>
      throwError(() => new Error('channel refused')),
    );
    const actor = createActor(sessionMachine.provide({ actors: { ...auth.actors, ownProfile: refused } })).start();
    auth.emit({ type: 'auth.sessionRestored', session: member });
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().matches('signedIn')).toBe(true);
    expect(actor.getSnapshot().context.displayName).toBeNull();
  });
});

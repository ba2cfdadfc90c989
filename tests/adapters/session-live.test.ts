import { afterEach, describe, expect, it } from 'vitest';
import { createActor, waitFor, type Actor } from 'xstate';
import type { SupabaseClient } from '@supabase/supabase-js';
import { createAuthAdapter } from '../../src/adapters/supabase/auth.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createProfileAdapter } from '../../src/adapters/supabase/profile.ts';
import { sessionLogic } from '../../src/app/session.ts';
import { anonClient, backendInfo, uniqueEmail } from '../setup/clients.ts';

/** The session machine as the app runs it: real adapter, real client, real backend. */

const actors: Actor<ReturnType<typeof sessionLogic>>[] = [];
afterEach(() => {
  for (const actor of actors.splice(0)) actor.stop();
});

function startSession(client = anonClient()) {
  const { url, anonKey } = backendInfo();
  const profile = createProfileAdapter(client as SupabaseClient<Database>, { url, anonKey });
  const actor = createActor(sessionLogic(createAuthAdapter(client), profile)).start();
  actors.push(actor);
  return { actor, client, profile };
}

describe('session machine with the Supabase adapter', () => {
  it('signs up, signs out and signs in again', async () => {
    const { actor } = startSession();
    await waitFor(actor, (s) => s.matches('signedOut'));
    const email = uniqueEmail('live');
    actor.send({ type: 'session.signUp', email, password: 'correct-horse-battery' });
    const signedIn = await waitFor(actor, (s) => s.matches('signedIn'));
    expect(signedIn.context.user?.email).toBe(email);

    actor.send({ type: 'session.signOut' });
    await waitFor(actor, (s) => s.matches('signedOut'));
    expect(actor.getSnapshot().context.user).toBeNull();

    actor.send({ type: 'session.signIn', email, password: 'wrong-password' });
    const failed = await waitFor(actor, (s) => s.matches({ signedOut: 'failed' }));
    expect(failed.context.error).toBe('Wrong email or password');

    actor.send({ type: 'session.signIn', email, password: 'correct-horse-battery' });
    const back = await waitFor(actor, (s) => s.matches('signedIn'));
    expect(back.context).toMatchObject({ user: { email }, error: null });
  });

  it('continues as guest', async () => {
    const { actor } = startSession();
    await waitFor(actor, (s) => s.matches('signedOut'));
    actor.send({ type: 'session.signInAsGuest' });
    const guest = await waitFor(actor, (s) => s.matches('guest'));
    expect(guest.context.user).toMatchObject({ email: null, isAnonymous: true });
    expect(guest.hasTag('authenticated')).toBe(true);
  });

  it('logs in the seeded demo account', async () => {
    const { actor } = startSession();
    await waitFor(actor, (s) => s.matches('signedOut'));
    actor.send({ type: 'session.signIn', email: 'demo@chartroom.dev', password: 'chartroom-demo' });
    const signedIn = await waitFor(actor, (s) => s.matches('signedIn'));
    expect(signedIn.context.user?.email).toBe('demo@chartroom.dev');
  });

  it('shows the profile name once read, and the new one after a rename, from this client or another', async () => {
    const { actor, profile } = startSession();
    await waitFor(actor, (s) => s.matches('signedOut'));
    const email = uniqueEmail('named');
    actor.send({ type: 'session.signUp', email, password: 'correct-horse-battery' });
    // The sign-up trigger names a profile after the email's local part.
    const named = await waitFor(actor, (s) => s.context.displayName !== null);
    expect(named.context.displayName).toBe(email.split('@')[0]);
    const userId = named.context.user?.id ?? '';

    expect((await profile.update(userId, { displayName: 'Ada Lovelace' })).ok).toBe(true);
    await waitFor(actor, (s) => s.context.displayName === 'Ada Lovelace');

    // Another device of the same person renames: the change arrives live.
    const elsewhere = anonClient();
    await elsewhere.auth.signInWithPassword({ email, password: 'correct-horse-battery' });
    const { url, anonKey } = backendInfo();
    const other = createProfileAdapter(elsewhere as SupabaseClient<Database>, { url, anonKey });
    expect((await other.update(userId, { displayName: 'Countess' })).ok).toBe(true);
    await waitFor(actor, (s) => s.context.displayName === 'Countess');

    actor.send({ type: 'session.signOut' });
    const out = await waitFor(actor, (s) => s.matches('signedOut'));
    expect(out.context.displayName).toBeNull();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createActor, waitFor, type Actor } from 'xstate';
import { createAuthAdapter } from '../../src/adapters/supabase/auth.ts';
import { sessionLogic } from '../../src/app/session.ts';
import { anonClient, uniqueEmail } from '../setup/clients.ts';

/** The session machine as the app runs it: real adapter, real client, real backend. */

const actors: Actor<ReturnType<typeof sessionLogic>>[] = [];
afterEach(() => {
  for (const actor of actors.splice(0)) actor.stop();
});

function startSession(client = anonClient()) {
  const actor = createActor(sessionLogic(createAuthAdapter(client))).start();
  actors.push(actor);
  return { actor, client };
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
});

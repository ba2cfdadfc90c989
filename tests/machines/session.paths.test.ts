import { describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom, type StateValue } from 'xstate';
import { type AdjacencyMap, type SerializedEvent, type SerializedSnapshot, getAdjacencyMap, getShortestPaths, getStateNodes, serializeSnapshot, type StatePath } from 'xstate/graph';
import { sessionMachine, type SessionEvent } from '../../machines/session.machine.ts';
import type { AuthEvent, AuthResult, SignUpResult } from '../../src/lib/ports/auth.ts';
import { fakeAuth, flush, guest, member, otherMember, wrongPassword } from './session.fakes.ts';

/**
 * Path tests (house style rule 12): traverse the session machine with a finite set of
 * events, then replay every shortest path, and every edge of the graph, against the
 * machine running with the fake adapter, so each state and each transition is exercised
 * through the real actors, not just the pure transition function.
 */

type Snapshot = SnapshotFrom<typeof sessionMachine>;
type GraphEvent = SessionEvent | { type: `xstate.${'done' | 'error'}.actor.${string}` | `xstate.after.${string}`; output?: unknown; error?: unknown };

const done = (actor: string, output: AuthResult | SignUpResult | undefined): GraphEvent => ({ type: `xstate.done.actor.${actor}`, output });
const crashed = (actor: string): GraphEvent => ({ type: `xstate.error.actor.${actor}`, error: new Error(`${actor} crashed`) });
const promotedGuest = { ...guest, user: { ...guest.user, email: 'g@example.test', isAnonymous: false } };

const events: GraphEvent[] = [
  { type: 'auth.sessionRestored', session: null },
  { type: 'auth.sessionRestored', session: member },
  { type: 'auth.sessionRestored', session: guest },
  { type: 'auth.signedIn', session: member },
  { type: 'auth.signedIn', session: otherMember },
  { type: 'auth.signedIn', session: guest },
  { type: 'auth.signedOut' },
  { type: 'auth.tokenRefreshed', session: member },
  { type: 'auth.userUpdated', session: promotedGuest },
  { type: 'auth.userUpdated', session: guest },
  { type: 'session.signIn', email: 'ada@example.test', password: 'pw-123456' },
  { type: 'session.signUp', email: 'ada@example.test', password: 'pw-123456' },
  { type: 'session.signInAsGuest' },
  { type: 'session.signOut' },
  done('signIn', { ok: true, session: member }),
  done('signIn', wrongPassword),
  done('signUp', { ok: true, session: member }),
  done('signUp', { ok: false, error: { code: 'user_already_exists', message: 'An account with this email already exists' } }),
  done('signUp', { ok: true, session: null, confirmationSentTo: 'ada@example.test' }),
  done('signInAsGuest', { ok: true, session: guest }),
  done('signInAsGuest', { ok: false, error: { code: 'guest_disabled', message: 'Guest access is turned off' } }),
  done('signOut', undefined),
  crashed('signIn'),
  crashed('signUp'),
  crashed('signInAsGuest'),
  crashed('signOut'),
  // The access token's life: the expiry timer, the refresh's outcomes, the retry timer.
  { type: 'xstate.after.accessTokenExpiry.session.signedIn.active' },
  { type: 'xstate.after.accessTokenExpiry.session.guest.active' },
  { type: 'xstate.after.refreshRetry.session.signedIn.waitingToRetry' },
  { type: 'xstate.after.refreshRetry.session.guest.waitingToRetry' },
  done('refreshSession', { ok: true, session: member }),
  done('refreshSession', { ok: false, error: { code: 'session_expired', message: 'Your session has expired. Sign in again to continue.' } }),
  done('refreshSession', { ok: false, error: { code: 'network', message: "Can't reach the server" } }),
  crashed('refreshSession'),
];

const traversal = {
  events: events as SessionEvent[],
  // Only events the current state handles: the rest would be self-loops that prove nothing.
  filterEvents: (snapshot: Snapshot, event: SessionEvent) => snapshot.can(event),
};

/** Drives a running actor with one graph step: intents are sent, facts emitted, requests settled. */
async function replay(steps: readonly GraphEvent[]) {
  const auth = fakeAuth();
  const actor = createActor(sessionMachine.provide({ actors: auth.actors })).start();
  for (const event of steps) {
    const request = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (request) {
      const name = request[2] as 'signIn' | 'signUp' | 'signInAsGuest' | 'signOut' | 'refreshSession';
      if (request[1] === 'done') await auth.settle(name, 'output' in event ? event.output : undefined);
      else await auth.fail(name, 'error' in event ? event.error : undefined);
    } else if (event.type.startsWith('xstate.after.')) {
      // A delayed transition's own event: what the scheduler would deliver when the time comes.
      actor.send(event as SessionEvent);
      await flush();
    } else if (event.type.startsWith('auth.')) {
      auth.emit(event as AuthEvent);
    } else {
      actor.send(event as SessionEvent);
    }
  }
  return { actor, auth };
}

const expectSame = (actual: Snapshot, expected: Snapshot) => {
  expect(actual.value).toEqual(expected.value);
  expect(actual.context).toEqual(expected.context);
};

const leafValue = (path: string[]): StateValue =>
  path.length === 1 ? (path[0] as string) : { [path[0] as string]: leafValue(path.slice(1)) };

describe('session machine paths', () => {
  const paths: StatePath<Snapshot, SessionEvent>[] = getShortestPaths(sessionMachine, traversal);

  it('reaches every state node by some path', () => {
    const reached = (nodePath: string[]) => paths.some((p) => p.state.matches(leafValue(nodePath) as never));
    const unreached = getStateNodes(sessionMachine.root)
      .filter((node) => node.path.length > 0)
      .filter((node) => !reached(node.path))
      .map((node) => node.path.join('.'));
    expect(unreached).toEqual([]);
  });

  it.each(paths.map((p) => [p.steps.map((s) => s.event.type).join(' → ') || '(initial)', p] as const))(
    'replays %s',
    async (_name, path) => {
      const { actor } = await replay(path.steps.map((s) => s.event));
      expectSame(actor.getSnapshot(), path.state);
      actor.stop();
    },
  );

  it('takes every edge of the graph on the running machine', async () => {
    const adjacency: AdjacencyMap<Snapshot, SessionEvent> = getAdjacencyMap(sessionMachine, traversal);
    const pathTo = new Map(paths.map((p) => [serializeSnapshot(p.state), p]));
    let edges = 0;
    for (const vertex of Object.keys(adjacency) as SerializedSnapshot[]) {
      const prefix = pathTo.get(vertex);
      expect(prefix, `a path to ${vertex}`).toBeDefined();
      const transitions = adjacency[vertex]?.transitions ?? {};
      for (const key of Object.keys(transitions) as SerializedEvent[]) {
        const edge = transitions[key];
        if (!edge) continue;
        const { actor } = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
        expectSame(actor.getSnapshot(), edge.state);
        actor.stop();
        edges += 1;
      }
    }
    // The traversal must have found a real graph, not an empty one.
    expect(edges).toBeGreaterThan(40);
    console.info(`session machine: ${paths.length} shortest paths, ${edges} edges replayed`);
  });
});

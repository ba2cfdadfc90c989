import { describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom, type StateValue } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getStateNodes, type AdjacencyMap, type AdjacencyValue, type StatePath } from 'xstate/graph';
import { invitesMachine, type InvitesEvent } from '../../machines/invites.machine.ts';
import type { Invite, InviteRequest, Result } from '../../src/lib/ports/room.ts';
import { heldRequests } from './held-requests.ts';
import { settle } from './room.fakes.ts';

type Request = 'listInvites' | 'createInvite' | 'revokeInvite';

function fakeInvites() {
  const { request, take, calls } = heldRequests<Request>();
  return {
    actors: {
      listInvites: request<Result<Invite[]>, { projectId: string }>('listInvites'),
      createInvite: request<Result<Invite>, InviteRequest>('createInvite'),
      revokeInvite: request<Result<string>, { inviteId: string }>('revokeInvite'),
    },
    calls,
    async settle(name: Request, output: unknown) {
      take(name).resolve(output);
      await settle();
    },
    async fail(name: Request) {
      take(name).reject(new Error(`${name} crashed`));
      await settle();
    },
  };
}

const invite = (id: string): Invite => ({ id, token: `${id}`.padEnd(36, '0'), role: 'editor', expiresAt: '2026-11-29T05:00:00Z', maxUses: null, uses: 0, revoked: false });
const refused = { ok: false, error: { code: 'forbidden', message: "You don't have permission to create the invite." } } as const;
const start = () => {
  const fake = fakeInvites();
  const actor = createActor(invitesMachine.provide({ actors: fake.actors }), { input: { projectId: 'p-1' } }).start();
  return { fake, actor, snap: () => actor.getSnapshot() };
};

describe('invites machine', () => {
  it('loads, creates (offering the new link), and revokes', async () => {
    const { fake, actor, snap } = start();
    expect(snap().hasTag('loading')).toBe(true);
    await fake.settle('listInvites', { ok: true, value: [invite('a')] });
    actor.send({ type: 'invites.create', role: 'viewer', expiresInDays: 30 });
    expect(fake.calls[1]).toEqual({ name: 'createInvite', input: { projectId: 'p-1', role: 'viewer', expiresInDays: 30, maxUses: null } });
    await fake.settle('createInvite', { ok: true, value: invite('b') });
    expect(snap().context.invites.map((i) => i.id)).toEqual(['b', 'a']);
    expect(snap().context.created?.id).toBe('b');
    actor.send({ type: 'invites.revoke', inviteId: 'b' });
    await fake.settle('revokeInvite', { ok: true, value: 'b' });
    expect(snap().context.invites.map((i) => i.id)).toEqual(['a']);
    expect(snap().context.created).toBeNull();
  });

  it('a failed load offers a retry; a refused create keeps the list and says why', async () => {
    const { fake, actor, snap } = start();
    await fake.settle('listInvites', { ok: false, error: { code: 'network', message: "Can't reach the server. Check your connection and try again." } });
    expect(snap().hasTag('loadFailed')).toBe(true);
    expect(snap().context.error).toMatch(/Can't reach/);
    actor.send({ type: 'invites.retry' });
    expect(snap().context.error).toBeNull();
    await fake.settle('listInvites', { ok: true, value: [invite('a')] });
    actor.send({ type: 'invites.create', role: 'editor', expiresInDays: 7 });
    await fake.settle('createInvite', refused);
    expect(snap().hasTag('ready')).toBe(true);
    expect(snap().context.error).toMatch(/permission/);
    expect(snap().context.invites).toHaveLength(1);
  });
});

type Snapshot = SnapshotFrom<typeof invitesMachine>;
type GraphEvent = InvitesEvent | { type: string; output?: unknown };
const done = (name: Request, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${name}`, output });
const crashed = (name: Request): GraphEvent => ({ type: `xstate.error.actor.${name}` });
const events: GraphEvent[] = [
  { type: 'invites.retry' },
  { type: 'invites.create', role: 'editor', expiresInDays: 7 },
  { type: 'invites.revoke', inviteId: 'a' },
  { type: 'invites.dismissError' },
  done('listInvites', { ok: true, value: [invite('a')] }),
  done('listInvites', refused),
  crashed('listInvites'),
  done('createInvite', { ok: true, value: invite('b') }),
  done('createInvite', refused),
  crashed('createInvite'),
  done('revokeInvite', { ok: true, value: 'a' }),
  done('revokeInvite', refused),
  crashed('revokeInvite'),
];
const traversal = {
  events: events as InvitesEvent[],
  // One create at most keeps the graph finite (each create adds a row).
  filterEvents: (snapshot: Snapshot, event: InvitesEvent) => snapshot.can(event) && !(event.type === 'invites.create' && snapshot.context.invites.length > 1),
  input: { projectId: 'p-1' },
};
const key = (s: Snapshot) => JSON.stringify({ value: s.value, context: s.context });
const leaf = (path: string[]): StateValue => (path.length === 1 ? (path[0] as string) : { [path[0] as string]: leaf(path.slice(1)) });

async function replay(steps: readonly GraphEvent[]) {
  const { fake, actor } = start();
  for (const event of steps) {
    const request = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (!request) actor.send(event as InvitesEvent);
    else if (request[1] === 'done') await fake.settle(request[2] as Request, 'output' in event ? event.output : undefined);
    else await fake.fail(request[2] as Request);
  }
  return actor;
}

describe('invites machine paths', () => {
  const paths: StatePath<Snapshot, InvitesEvent>[] = getShortestPaths(invitesMachine, traversal as never);

  it('reaches every state node', () => {
    const unreached = getStateNodes(invitesMachine.root)
      .filter((n) => n.path.length > 0 && !paths.some((p) => p.state.matches(leaf(n.path) as never)))
      .map((n) => n.path.join('.'));
    expect(unreached).toEqual([]);
  });

  it('replays every shortest path and every edge on the running machine', async () => {
    for (const path of paths) {
      const actor = await replay(path.steps.map((s) => s.event));
      expect(key(actor.getSnapshot())).toBe(key(path.state));
      actor.stop();
    }
    const adjacency: AdjacencyMap<Snapshot, InvitesEvent> = getAdjacencyMap(invitesMachine, traversal as never);
    const pathTo = new Map(paths.map((p) => [key(p.state), p]));
    let edges = 0;
    for (const vertex of Object.values(adjacency) as AdjacencyValue<Snapshot, InvitesEvent>[]) {
      const prefix = pathTo.get(key(vertex.state));
      expect(prefix).toBeDefined();
      for (const edge of Object.values(vertex.transitions) as { event: InvitesEvent; state: Snapshot }[]) {
        const actor = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
        expect(key(actor.getSnapshot())).toBe(key(edge.state));
        actor.stop();
        edges += 1;
      }
    }
    expect(edges).toBeGreaterThan(20);
  });
});

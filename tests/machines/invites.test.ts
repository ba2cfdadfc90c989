import { describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { invitesMachine, type InvitesEvent } from '../../machines/room/invites.machine.ts';
import type { Invite, InviteRequest, Result } from '../../src/lib/ports/room.ts';
import { heldRequests } from './held-requests.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
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

const invite = (id: string): Invite => ({
  id,
  token: `${id}`.padEnd(36, '0'),
  role: 'editor',
  expiresAt: '2026-11-29T05:00:00Z',
  maxUses: null,
  uses: 0,
  revoked: false,
});
const refused = {
  ok: false,
  error: { code: 'forbidden', message: "You don't have permission to create the invite." },
} as const;
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
    expect(fake.calls[1]).toEqual({
      name: 'createInvite',
      input: { projectId: 'p-1', role: 'viewer', expiresInDays: 30, maxUses: null },
    });
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
    await fake.settle('listInvites', {
      ok: false,
      error: { code: 'network', message: "Can't reach the server. Check your connection and try again." },
    });
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
  filterEvents: (snapshot: Snapshot, event: InvitesEvent) =>
    snapshot.can(event) && !(event.type === 'invites.create' && snapshot.context.invites.length > 1),
  input: { projectId: 'p-1' },
};
const key = (s: Snapshot) => JSON.stringify({ value: s.value, context: s.context });

async function replay(steps: readonly GraphEvent[]) {
  const { fake, actor } = start();
  for (const event of steps) if (!(await settleRequest(fake, event))) actor.send(event as InvitesEvent);
  return actor;
}

describeMachinePaths('invites machine', { machine: invitesMachine, traversal, replay, observe: key, minEdges: 20 });

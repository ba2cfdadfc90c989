import { afterAll, describe, expect, it } from 'vitest';
import { createMembersAdapter } from '../../src/adapters/supabase/members.ts';
import { openChannel, socketEvents, toPeers } from '../../src/adapters/supabase/realtime.ts';
import { createRoomAdapter } from '../../src/adapters/supabase/room.ts';
import type { RoomFact } from '../../src/lib/ports/room.ts';
import { createProject, person, record, type TypedClient } from './room-fixtures.ts';

/**
 * The realtime adapter against the embedded backend through the real supabase-js client,
 * two people at once: typed postgres changes, presence, broadcast, channel and socket
 * status, and the room adapter built on them.
 */

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
const closeAll = (client: TypedClient) => cleanups.push(() => client.removeAllChannels());

const isChange = (fact: RoomFact): fact is Extract<RoomFact, { type: 'change.received' }> =>
  fact.type === 'change.received';

describe('room channel (two clients)', () => {
  it('carries presence both ways, and renames, role changes and removal as typed changes', async () => {
    const [ada, bob] = await Promise.all([person('rt-ada'), person('rt-bob')]);
    closeAll(ada.client);
    closeAll(bob.client);
    const project = await createProject(ada.client, 'Realtime room');
    const invite = await createMembersAdapter(ada.client).createInvite({
      projectId: project.id,
      role: 'editor',
      expiresInDays: 1,
      maxUses: null,
    });
    if (!invite.ok) throw new Error(invite.error.message);
    const accepted = await createMembersAdapter(bob.client).acceptInvite(invite.value.token);
    expect(accepted).toEqual({ ok: true, value: { projectId: project.id, role: 'editor', alreadyMember: false } });

    const adaRoom = createRoomAdapter(ada.client).open(project.id, ada.id);
    const bobRoom = createRoomAdapter(bob.client).open(project.id, bob.id);
    const adaFacts = record(adaRoom.facts$);
    const bobFacts = record(bobRoom.facts$);
    cleanups.push(adaFacts.stop, bobFacts.stop);
    adaRoom.track('members');
    bobRoom.track(null);
    await adaFacts.waitFor((f) => f.type === 'channel.subscribed');
    await bobFacts.waitFor((f) => f.type === 'channel.subscribed');

    // Each sees the other, with what they are looking at.
    await adaFacts.waitFor((f) => f.type === 'presence.synced' && f.peers.some((p) => p.userId === bob.id));
    const seenByBob = await bobFacts.waitFor(
      (f) => f.type === 'presence.synced' && f.peers.some((p) => p.userId === ada.id && p.looking === 'members'),
    );
    expect(seenByBob.type).toBe('presence.synced');

    // A rename reaches the other member as a typed project row.
    await createMembersAdapter(ada.client).renameProject(project.id, 'Renamed live');
    const rename = await bobFacts.waitFor(
      (f) => isChange(f) && f.change.table === 'projects' && f.change.type === 'upsert',
    );
    expect(
      isChange(rename) &&
        rename.change.table === 'projects' &&
        rename.change.type === 'upsert' &&
        rename.change.row.name,
    ).toBe('Renamed live');

    // Made a viewer: Bob's own membership row arrives with the new role.
    await createMembersAdapter(ada.client).changeRole(project.id, bob.id, 'viewer');
    await bobFacts.waitFor(
      (f) =>
        isChange(f) &&
        f.change.table === 'project_members' &&
        f.change.type === 'upsert' &&
        f.change.row.userId === bob.id &&
        f.change.row.role === 'viewer',
    );

    // Removed: the delete of his membership still reaches Bob (deletes carry the key).
    const removed = await createMembersAdapter(ada.client).removeMember(project.id, bob.id);
    expect(removed).toEqual({ ok: true, value: null });
    await bobFacts.waitFor(
      (f) =>
        isChange(f) && f.change.table === 'project_members' && f.change.type === 'delete' && f.change.userId === bob.id,
    );
    await adaFacts.waitFor(
      (f) =>
        isChange(f) && f.change.table === 'project_members' && f.change.type === 'delete' && f.change.userId === bob.id,
    );

    // Bob leaves: Ada's presence drops him.
    bobFacts.stop();
    await adaFacts.waitFor(
      (f) =>
        f.type === 'presence.synced' &&
        f.peers.every((p) => p.userId !== bob.id) &&
        adaFacts.seen.indexOf(f) >
          adaFacts.seen.findIndex((g) => g.type === 'presence.synced' && g.peers.some((p) => p.userId === bob.id)),
    );
  });

  it('a member who joins while the room is open arrives with their profile', async () => {
    const [ada, cy] = await Promise.all([person('rt-join-a'), person('rt-join-c')]);
    closeAll(ada.client);
    const project = await createProject(ada.client, 'Joined live');
    const room = record(createRoomAdapter(ada.client).open(project.id, ada.id).facts$);
    cleanups.push(room.stop);
    await room.waitFor((f) => f.type === 'channel.subscribed');
    const invite = await createMembersAdapter(ada.client).createInvite({
      projectId: project.id,
      role: 'viewer',
      expiresInDays: 1,
      maxUses: 1,
    });
    if (!invite.ok) throw new Error(invite.error.message);
    await createMembersAdapter(cy.client).acceptInvite(invite.value.token);
    await room.waitFor(
      (f) =>
        isChange(f) &&
        f.change.table === 'project_members' &&
        f.change.type === 'upsert' &&
        f.change.row.userId === cy.id &&
        f.change.row.role === 'viewer',
    );
    const profile = await room.waitFor(
      (f) => isChange(f) && f.change.table === 'profiles' && f.change.type === 'upsert' && f.change.row.id === cy.id,
    );
    expect(
      isChange(profile) &&
        profile.change.table === 'profiles' &&
        profile.change.type === 'upsert' &&
        profile.change.row.displayName,
    ).toBe(cy.email.split('@')[0]);
  });

  it('loads a snapshot of project, members and profiles; an outsider gets a clear not-found', async () => {
    const [ada, eve] = await Promise.all([person('rt-snap'), person('rt-eve')]);
    const project = await createProject(ada.client, 'Snapshot');
    const snap = await createRoomAdapter(ada.client).loadSnapshot(project.id);
    if (!snap.ok) throw new Error(snap.error.message);
    expect(snap.value.project?.name).toBe('Snapshot');
    expect(snap.value.members[ada.id]?.role).toBe('owner');
    expect(snap.value.profiles[ada.id]?.displayName).toBe(ada.email.split('@')[0]);
    expect(snap.value.profiles[ada.id]?.color).toMatch(/^#[0-9a-f]{6}$/);
    const outsider = await createRoomAdapter(eve.client).loadSnapshot(project.id);
    expect(outsider).toEqual({
      ok: false,
      error: { code: 'not_found', message: "This project doesn't exist, or you don't have access to it." },
    });
  });
});

describe('generic channel streams', () => {
  it('broadcast between two clients, typed payloads, and channel status', async () => {
    const [ada, bob] = await Promise.all([person('rt-bc-a'), person('rt-bc-b')]);
    closeAll(ada.client);
    closeAll(bob.client);
    const topic = `cursor-test-${ada.id}`;
    type Cursor = { x: number; y: number };
    const a = openChannel<never, Cursor, { userId: string }>(ada.client, {
      topic,
      broadcast: ['cursor'],
      presenceKey: ada.id,
    });
    const b = openChannel<never, Cursor, { userId: string }>(bob.client, {
      topic,
      broadcast: ['cursor'],
      presenceKey: bob.id,
    });
    const aFacts = record(a.facts$);
    const bFacts = record(b.facts$);
    cleanups.push(aFacts.stop, bFacts.stop);
    await aFacts.waitFor((f) => f.type === 'status' && f.status === 'subscribed');
    await bFacts.waitFor((f) => f.type === 'status' && f.status === 'subscribed');
    a.send('cursor', { x: 3, y: 4 });
    const got = await bFacts.waitFor((f) => f.type === 'broadcast');
    expect(got).toEqual({ type: 'broadcast', event: 'cursor', payload: { x: 3, y: 4 } });
    // The sender does not hear itself (broadcast self is off).
    expect(aFacts.seen.some((f) => f.type === 'broadcast')).toBe(false);
  });

  it('reports the socket opening and closing', async () => {
    const ada = await person('rt-sock');
    const socket = record(socketEvents(ada.client, null));
    cleanups.push(socket.stop);
    const channel = record(openChannel(ada.client, { topic: `socket-test-${ada.id}` }).facts$);
    await socket.waitFor((f) => f.type === 'socket.opened');
    channel.stop();
    await ada.client.realtime.disconnect();
    await socket.waitFor((f) => f.type === 'socket.closed');
  });

  it("reports the device's network going and coming back", async () => {
    const ada = await person('rt-net');
    const network = new EventTarget();
    const socket = record(socketEvents(ada.client, network));
    cleanups.push(socket.stop);
    network.dispatchEvent(new Event('offline'));
    network.dispatchEvent(new Event('online'));
    await socket.waitFor((f) => f.type === 'network.restored');
    expect(socket.seen.filter((f) => f.type.startsWith('network.'))).toEqual([
      { type: 'network.lost' },
      { type: 'network.restored' },
    ]);
  });

  it('folds presence metas into one peer per key, newest meta last wins', () => {
    expect(toPeers({ b: [{ n: 1 }], a: [{ n: 1 }, { n: 2 }], c: [] })).toEqual([
      { key: 'a', meta: { n: 2 }, connections: 2, metas: [{ n: 1 }, { n: 2 }] },
      { key: 'b', meta: { n: 1 }, connections: 1, metas: [{ n: 1 }] },
    ]);
  });
});

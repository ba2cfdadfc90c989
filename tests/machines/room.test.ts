import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { roomMachine } from '../../machines/room/room.machine.ts';
import {
  accepted,
  at,
  BOB,
  fakeRoom,
  loaded,
  ME,
  member,
  notFound,
  project,
  PROJECT,
  refused,
  snapshot,
  ROOM_INPUT,
} from './room.fakes.ts';

function start() {
  const room = fakeRoom();
  const actor = createActor(roomMachine.provide({ actors: room.actors }), { input: ROOM_INPUT }).start();
  return { room, actor, snap: () => actor.getSnapshot() };
}

async function live() {
  const started = start();
  started.room.emit({ type: 'channel.subscribed' });
  await started.room.settle('loadSnapshot', loaded);
  return started;
}

afterEach(() => vi.useRealTimers());

describe('room machine', () => {
  it('subscribes first, buffers, loads the snapshot, merges: newer wins, duplicates dropped', async () => {
    const { room, snap } = start();
    expect(room.channels.opened).toBe(1);
    expect(snap().hasTag('pending')).toBe(true);
    // Before the channel is even joined, a change arrives: it waits in the buffer.
    room.emit({
      type: 'change.received',
      change: { table: 'projects', type: 'upsert', row: project('Traffic light', at(10)) },
    });
    room.emit({ type: 'channel.subscribed' });
    expect(room.calls).toEqual([{ name: 'loadSnapshot', input: { projectId: PROJECT } }]);
    room.emit({
      type: 'change.received',
      change: { table: 'projects', type: 'upsert', row: project('Crossing', at(11)) },
    });
    expect(snap().context.buffer).toHaveLength(2);
    await room.settle('loadSnapshot', loaded);
    expect(snap().hasTag('live')).toBe(true);
    expect(snap().context.data.project?.name).toBe('Crossing');
    expect(snap().context.buffer).toEqual([]);
    expect(Object.keys(snap().context.data.members)).toEqual([ME, BOB]);
  });

  it('applies live changes: a role change reaches the member list', async () => {
    const { room, snap } = await live();
    room.emit({
      type: 'change.received',
      change: { table: 'project_members', type: 'upsert', row: member(BOB, 'viewer', at(20)) },
    });
    expect(snap().context.data.members[BOB]?.role).toBe('viewer');
  });

  it('my own role change is live too (what canEdit reads)', async () => {
    const { room, snap } = start();
    room.emit({ type: 'channel.subscribed' });
    await room.settle('loadSnapshot', {
      ok: true,
      value: { ...snapshot, members: { ...snapshot.members, [ME]: member(ME, 'editor', at(5)) } },
    });
    room.emit({
      type: 'change.received',
      change: { table: 'project_members', type: 'upsert', row: member(ME, 'viewer', at(20)) },
    });
    expect(snap().context.data.members[ME]?.role).toBe('viewer');
    expect(snap().hasTag('live')).toBe(true);
  });

  it('goes to removed with a message when my membership is deleted, and closes the channel', async () => {
    const { room, snap } = await live();
    room.emit({
      type: 'change.received',
      change: { table: 'project_members', type: 'delete', userId: ME, committedAt: at(30) },
    });
    expect(snap().value).toBe('removed');
    expect(snap().context.removedReason).toMatch(/removed from this project/);
    expect(room.channels.closed).toBe(1);
  });

  it('says so when the project is deleted', async () => {
    const { room, snap } = await live();
    room.emit({
      type: 'change.received',
      change: { table: 'projects', type: 'delete', id: PROJECT, committedAt: at(30) },
    });
    expect(snap().context.removedReason).toBe('This project was deleted.');
  });

  it('resynchronises after a drop without losing or doubling anything', async () => {
    const { room, snap } = await live();
    room.emit({ type: 'channel.errored', message: 'socket closed' });
    expect(snap().hasTag('resyncing')).toBe(true);
    // What we had stays on screen.
    expect(snap().context.data.project?.name).toBe('Traffic light');
    room.emit({ type: 'channel.subscribed' });
    const rename = { table: 'projects', type: 'upsert', row: project('Renamed while away', at(40)) } as const;
    room.emit({ type: 'change.received', change: rename });
    // The snapshot already has the rename (it committed before the read): applied once.
    await room.settle('loadSnapshot', {
      ok: true,
      value: { ...snapshot, project: project('Renamed while away', at(40)) },
    });
    expect(snap().hasTag('live')).toBe(true);
    expect(snap().context.data.project).toEqual(project('Renamed while away', at(40)));
    expect(room.channels.opened).toBe(1);
  });

  it('a member who lost access while away is told so on resync', async () => {
    const { room, snap } = await live();
    room.emit({ type: 'channel.errored', message: 'socket closed' });
    room.emit({ type: 'channel.subscribed' });
    await room.settle('loadSnapshot', notFound);
    expect(snap().value).toBe('removed');
    expect(snap().context.removedReason).toMatch(/no longer have access/);
  });

  it('shows why the room failed to open, and retries with a fresh channel', async () => {
    const { room, actor, snap } = start();
    room.emit({ type: 'channel.subscribed' });
    await room.settle('loadSnapshot', notFound);
    expect(snap().value).toBe('failed');
    expect(snap().context.error).toMatch(/doesn't exist/);
    expect(room.channels.closed).toBe(1);
    actor.send({ type: 'room.retry' });
    expect(snap().context.error).toBeNull();
    expect(room.channels.opened).toBe(2);
  });

  it('gives up joining after the join timeout with a message', async () => {
    vi.useFakeTimers();
    const { snap } = start();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(snap().value).toBe('failed');
    expect(snap().context.error).toMatch(/live updates/);
  });

  it('keeps presence and publishes what I am looking at', async () => {
    const { room, actor, snap } = await live();
    room.emit({ type: 'presence.synced', peers: [{ userId: BOB, looking: 'members', connections: 1 }] });
    expect(snap().context.peers).toEqual([{ userId: BOB, looking: 'members', connections: 1 }]);
    actor.send({ type: 'room.look', looking: 'invites' });
    actor.send({ type: 'room.look', looking: 'invites' });
    // Focus moving inside the same panel republishes nothing.
    expect(room.tracked).toEqual([null, 'invites']);
  });

  it('owner requests: a refusal is shown and can be dismissed; success waits for the change', async () => {
    const { room, actor, snap } = await live();
    actor.send({ type: 'room.changeRole', userId: BOB, role: 'viewer' });
    expect(snap().hasTag('adminBusy')).toBe(true);
    expect(snap().context.adminTarget).toBe(BOB);
    await room.settle('changeRole', refused);
    expect(snap().hasTag('adminFailed')).toBe(true);
    expect(snap().context.adminError).toMatch(/permission/);
    actor.send({ type: 'room.dismissError' });
    expect(snap().context.adminError).toBeNull();
    actor.send({ type: 'room.removeMember', userId: BOB });
    await room.settle('removeMember', accepted);
    expect(snap().hasTag('adminBusy')).toBe(false);
    // The member stays until the change arrives: one path for data.
    expect(snap().context.data.members[BOB]).toBeDefined();
    room.emit({
      type: 'change.received',
      change: { table: 'project_members', type: 'delete', userId: BOB, committedAt: at(50) },
    });
    expect(snap().context.data.members[BOB]).toBeUndefined();
  });

  it('a crashing request becomes a generic message instead of hanging', async () => {
    const { room, actor, snap } = await live();
    actor.send({ type: 'room.rename', name: 'New' });
    await room.fail('renameProject', new TypeError('boom'));
    expect(snap().context.adminError).toBe('Something went wrong. Try again.');
  });

  it("is the parent of its machine list, an owner's invites, and the machine open in it", async () => {
    const { room, snap } = await live();
    expect(room.children.machineList.started).toEqual([{ projectId: PROJECT }]);
    // Ada owns the project, so her invites are open; demoted, they close.
    expect(room.children.invites.started).toEqual([{ projectId: PROJECT }]);
    room.route({ type: 'route.entered', machineId: 'm-1' });
    expect(room.children.openMachine.started).toEqual([
      { machineId: 'm-1', userId: ME, canEdit: true, canSend: true, document: ROOM_INPUT.document },
    ]);
    expect(snap().context.looking).toBe('machine:m-1');
    expect(room.tracked.at(-1)).toBe('machine:m-1');
    room.emit({
      type: 'change.received',
      change: { table: 'project_members', type: 'upsert', row: member(ME, 'viewer', at(30)) },
    });
    expect(room.children.openMachine.received.at(-1)).toEqual({
      type: 'machine.editableChanged',
      canEdit: false,
      canSend: true,
    });
    expect(room.children.invites.stopped).toBe(1);
    room.route({ type: 'route.left' });
    expect(room.children.openMachine.stopped).toBe(1);
    expect(room.tracked.at(-1)).toBeNull();
  });
});

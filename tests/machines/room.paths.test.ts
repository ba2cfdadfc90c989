import { vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { roomMachine, type RoomEvent, type RouteFact } from '../../machines/room/room.machine.ts';
import type { Result, RoomData, RoomFact } from '../../src/lib/ports/room.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
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
  settle,
  type RoomRequest,
  ROOM_INPUT,
} from './room.fakes.ts';

/**
 * Path tests for the room machine: every state node is reached, and
 * every shortest path and every edge is replayed on the running machine with the fake
 * port (facts emitted, requests settled, the join timeout taken with fake timers).
 * Vertices are keyed by state value and the context the views read, not the raw buffer,
 * and the traversal buffers at most one change, so the graph stays finite.
 */

type Snapshot = SnapshotFrom<typeof roomMachine>;
type GraphEvent = RoomEvent | { type: string; output?: unknown; error?: unknown };

const JOIN_TIMEOUT = 'xstate.after.joinTimeout.room.open.sync.joining';
const done = (actor: RoomRequest, output: Result<unknown>): GraphEvent => ({
  type: `xstate.done.actor.${actor}`,
  output,
});
const crashed = (actor: RoomRequest): GraphEvent => ({
  type: `xstate.error.actor.${actor}`,
  error: new Error(`${actor} crashed`),
});
const failedLoad: Result<RoomData> = {
  ok: false,
  error: { code: 'server', message: "The server couldn't load this project. Try again." },
};

const changes: RoomFact[] = [
  { type: 'change.received', change: { table: 'projects', type: 'upsert', row: project('Renamed', at(20)) } },
  { type: 'change.received', change: { table: 'project_members', type: 'upsert', row: member(BOB, 'viewer', at(21)) } },
  { type: 'change.received', change: { table: 'project_members', type: 'delete', userId: ME, committedAt: at(22) } },
  { type: 'change.received', change: { table: 'projects', type: 'delete', id: PROJECT, committedAt: at(23) } },
];

const events: GraphEvent[] = [
  { type: 'channel.subscribed' },
  { type: 'channel.errored', message: 'socket closed' },
  { type: 'channel.closed' },
  ...changes,
  { type: 'presence.synced', peers: [{ userId: BOB, looking: null, connections: 1 }] },
  { type: 'room.retry' },
  { type: 'room.look', looking: 'members' },
  { type: 'route.entered', machineId: 'm-1' },
  { type: 'route.left' },
  { type: 'room.rename', name: 'Crossing' },
  { type: 'room.changeRole', userId: BOB, role: 'viewer' },
  { type: 'room.removeMember', userId: BOB },
  { type: 'room.dismissError' },
  { type: JOIN_TIMEOUT },
  done('loadSnapshot', loaded),
  done('loadSnapshot', notFound),
  done('loadSnapshot', failedLoad),
  crashed('loadSnapshot'),
  ...(['renameProject', 'changeRole', 'removeMember'] as const).flatMap((name) => [
    done(name, accepted),
    done(name, refused),
    crashed(name),
  ]),
];

const isAdmin = (type: string) =>
  /^room\.(rename|changeRole|removeMember|dismissError)$|^xstate\.(done|error)\.actor\.(renameProject|changeRole|removeMember)$/.test(
    type,
  );

const traversal = {
  events: events as RoomEvent[],
  filterEvents: (snapshot: Snapshot, event: RoomEvent) => {
    if (!snapshot.can(event)) return false;
    // Buffer at most one change; admin requests only from a live room (the region is
    // independent of sync, so this keeps the product of the two regions small).
    // Live changes, admin requests and presence are independent of one another: explore
    // each from an otherwise untouched live room rather than every combination.
    const { context } = snapshot;
    const pristine = context.data.project?.name !== 'Renamed' && context.data.members[BOB]?.role !== 'viewer';
    const quiet = context.peers.length === 0 && context.looking === null;
    const adminIdle = snapshot.matches({ open: { admin: 'idle' } }) && context.adminError === null;
    if (event.type === 'change.received')
      return snapshot.hasTag('live') ? adminIdle && quiet : context.buffer.length === 0 && pristine;
    if (event.type === 'channel.errored' || event.type === 'channel.closed') return adminIdle && quiet;
    if (isAdmin(event.type)) return snapshot.hasTag('live') && pristine && quiet;
    if (event.type === 'presence.synced' || event.type === 'room.look')
      return snapshot.hasTag('live') && pristine && adminIdle;
    // A machine opens and closes in an otherwise untouched live room.
    if (event.type === 'route.entered' || event.type === 'route.left')
      return snapshot.hasTag('live') && pristine && adminIdle && context.peers.length === 0;
    return true;
  },
  serializeState: (snapshot: Snapshot) => key(snapshot),
  input: ROOM_INPUT,
};

function key(snapshot: Snapshot): string {
  const { data, buffer, peers, looking, wasMember, error, adminError, adminTarget, removedReason, machineId } =
    snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    data,
    buffer,
    peers,
    looking,
    wasMember,
    error,
    adminError,
    adminTarget,
    removedReason,
    machineId,
  });
}

async function replay(steps: readonly GraphEvent[]) {
  const room = fakeRoom();
  const actor = createActor(roomMachine.provide({ actors: room.actors }), { input: ROOM_INPUT }).start();
  const take = async (event: GraphEvent) => {
    if (await settleRequest(room, event)) return;
    if (event.type === JOIN_TIMEOUT) await vi.advanceTimersByTimeAsync(15_000);
    else if (event.type.startsWith('room.')) actor.send(event as RoomEvent);
    else if (event.type === 'route.entered' || event.type === 'route.left') room.route(event as RouteFact);
    else room.emit(event as RoomFact);
  };
  for (const event of steps) {
    await take(event);
    await settle();
  }
  return actor;
}

describeMachinePaths('room machine', {
  machine: roomMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 100,
  fakeTimers: true,
  timeout: 120_000,
});

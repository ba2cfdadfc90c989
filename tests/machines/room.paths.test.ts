import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, type SnapshotFrom, type StateValue } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getStateNodes, type AdjacencyMap, type AdjacencyValue, type StatePath } from 'xstate/graph';
import { roomMachine, type RoomEvent } from '../../machines/room.machine.ts';
import type { Result, RoomData, RoomFact } from '../../src/lib/ports/room.ts';
import { accepted, at, BOB, fakeRoom, loaded, ME, member, notFound, project, PROJECT, refused, settle, type RoomRequest } from './room.fakes.ts';

/**
 * Path tests (house style rule 12) for the room machine: every state node is reached, and
 * every shortest path and every edge is replayed on the running machine with the fake
 * port (facts emitted, requests settled, the join timeout taken with fake timers).
 * Vertices are keyed by state value and the context the views read, not the raw buffer,
 * and the traversal buffers at most one change, so the graph stays finite.
 */

type Snapshot = SnapshotFrom<typeof roomMachine>;
type GraphEvent = RoomEvent | { type: string; output?: unknown; error?: unknown };

const JOIN_TIMEOUT = 'xstate.after.joinTimeout.room.open.sync.joining';
const done = (actor: RoomRequest, output: Result<unknown>): GraphEvent => ({ type: `xstate.done.actor.${actor}`, output });
const crashed = (actor: RoomRequest): GraphEvent => ({ type: `xstate.error.actor.${actor}`, error: new Error(`${actor} crashed`) });
const failedLoad: Result<RoomData> = { ok: false, error: { code: 'server', message: "The server couldn't load this project. Try again." } };

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
  { type: 'room.rename', name: 'Crossing' },
  { type: 'room.changeRole', userId: BOB, role: 'viewer' },
  { type: 'room.removeMember', userId: BOB },
  { type: 'room.dismissError' },
  { type: JOIN_TIMEOUT },
  done('loadSnapshot', loaded),
  done('loadSnapshot', notFound),
  done('loadSnapshot', failedLoad),
  crashed('loadSnapshot'),
  ...(['renameProject', 'changeRole', 'removeMember'] as const).flatMap((name) => [done(name, accepted), done(name, refused), crashed(name)]),
];

const isAdmin = (type: string) => /^room\.(rename|changeRole|removeMember|dismissError)$|^xstate\.(done|error)\.actor\.(renameProject|changeRole|removeMember)$/.test(type);

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
    if (event.type === 'change.received') return snapshot.hasTag('live') ? adminIdle && quiet : context.buffer.length === 0 && pristine;
    if (event.type === 'channel.errored' || event.type === 'channel.closed') return adminIdle && quiet;
    if (isAdmin(event.type)) return snapshot.hasTag('live') && pristine && quiet;
    if (event.type === 'presence.synced' || event.type === 'room.look') return snapshot.hasTag('live') && pristine && adminIdle;
    return true;
  },
  serializeState: (snapshot: Snapshot) => key(snapshot),
};

function key(snapshot: Snapshot): string {
  const { data, buffer, peers, looking, wasMember, error, adminError, adminTarget, removedReason } = snapshot.context;
  return JSON.stringify({ value: snapshot.value, data, buffer, peers, looking, wasMember, error, adminError, adminTarget, removedReason });
}

async function replay(steps: readonly GraphEvent[]) {
  const room = fakeRoom();
  const actor = createActor(roomMachine.provide({ actors: room.actors }), { input: { projectId: PROJECT, userId: ME } }).start();
  for (const event of steps) {
    const request = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (event.type === JOIN_TIMEOUT) await vi.advanceTimersByTimeAsync(15_000);
    else if (request) {
      const name = request[2] as RoomRequest;
      if (request[1] === 'done') await room.settle(name, 'output' in event ? event.output : undefined);
      else await room.fail(name, 'error' in event ? event.error : undefined);
    } else if (event.type.startsWith('room.')) actor.send(event as RoomEvent);
    else room.emit(event as RoomFact);
    await settle();
  }
  return actor;
}

const leafValue = (path: string[]): StateValue => (path.length === 1 ? (path[0] as string) : { [path[0] as string]: leafValue(path.slice(1)) });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('room machine paths', () => {
  const paths: StatePath<Snapshot, RoomEvent>[] = getShortestPaths(roomMachine, { ...traversal, input: { projectId: PROJECT, userId: ME } });

  it('reaches every state node by some path', () => {
    const unreached = getStateNodes(roomMachine.root)
      .filter((node) => node.path.length > 0)
      .filter((node) => !paths.some((p) => p.state.matches(leafValue(node.path) as never)))
      .map((node) => node.path.join('.'));
    expect(unreached).toEqual([]);
  });

  it.each(paths.map((p) => [p.steps.map((s) => s.event.type).join(' → ') || '(initial)', p] as const))('replays %s', async (_name, path) => {
    const actor = await replay(path.steps.map((s) => s.event));
    expect(key(actor.getSnapshot())).toBe(key(path.state));
    actor.stop();
  });

  it('takes every edge of the graph on the running machine', async () => {
    const adjacency: AdjacencyMap<Snapshot, RoomEvent> = getAdjacencyMap(roomMachine, { ...traversal, input: { projectId: PROJECT, userId: ME } });
    const pathTo = new Map(paths.map((p) => [key(p.state), p]));
    let edges = 0;
    for (const vertex of Object.values(adjacency) as AdjacencyValue<Snapshot, RoomEvent>[]) {
      const prefix = pathTo.get(key(vertex.state));
      expect(prefix, `a path to ${key(vertex.state)}`).toBeDefined();
      for (const edge of Object.values(vertex.transitions) as { event: RoomEvent; state: Snapshot }[]) {
        const actor = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
        expect(key(actor.getSnapshot())).toBe(key(edge.state));
        actor.stop();
        edges += 1;
      }
    }
    expect(edges).toBeGreaterThan(100);
    console.info(`room machine: ${paths.length} shortest paths, ${edges} edges replayed`);
  }, 120_000);
});

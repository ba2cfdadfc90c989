import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, type SnapshotFrom, type StateValue } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getStateNodes, type AdjacencyMap, type AdjacencyValue, type StatePath } from 'xstate/graph';
import { backoffDelay, connectionMachine, type ConnectionEvent } from '../../machines/connection.machine.ts';
import type { SocketEvent } from '../../src/lib/ports/realtime.ts';
import { fakeSocket, settle } from './connection.fakes.ts';

/**
 * Path tests (house style rule 12): every shortest path and every edge of the connection
 * machine's graph is replayed on the running machine with the fake socket; delayed
 * transitions are taken by advancing fake timers, requests by settling the fake.
 */

type Snapshot = SnapshotFrom<typeof connectionMachine>;
type GraphEvent = ConnectionEvent | { type: string; error?: unknown };

const BACKOFF = 'xstate.after.backoff.connection.reconnecting.waiting';
const OFFLINE_RETRY = 'xstate.after.offlineRetry.connection.offline';

const events: GraphEvent[] = [
  { type: 'socket.opened' },
  { type: 'socket.closed', clean: true },
  { type: 'socket.closed', clean: false },
  { type: 'socket.errored', message: 'connection refused' },
  { type: 'network.lost' },
  { type: 'network.restored' },
  { type: 'connection.retry' },
  { type: BACKOFF },
  { type: OFFLINE_RETRY },
  { type: 'xstate.done.actor.reconnect' },
  { type: 'xstate.error.actor.reconnect', error: new Error('reconnect failed') },
];

const traversal = {
  events: events as ConnectionEvent[],
  filterEvents: (snapshot: Snapshot, event: ConnectionEvent) => snapshot.can(event),
};

async function replay(steps: readonly GraphEvent[]) {
  const socket = fakeSocket({ hold: true });
  const actor = createActor(connectionMachine.provide({ actors: socket.actors })).start();
  for (const event of steps) {
    if (event.type === BACKOFF) await vi.advanceTimersByTimeAsync(backoffDelay(actor.getSnapshot().context.attempts));
    else if (event.type === OFFLINE_RETRY) await vi.advanceTimersByTimeAsync(60_000);
    else if (event.type === 'xstate.done.actor.reconnect') await socket.finishReconnect('done');
    else if (event.type === 'xstate.error.actor.reconnect') await socket.finishReconnect('error');
    else if (event.type === 'connection.retry') actor.send(event as ConnectionEvent);
    else socket.emit(event as SocketEvent);
    await settle();
  }
  return actor;
}

const leafValue = (path: string[]): StateValue => (path.length === 1 ? (path[0] as string) : { [path[0] as string]: leafValue(path.slice(1)) });
const key = (snapshot: Snapshot) => JSON.stringify({ value: snapshot.value, context: snapshot.context });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connection machine paths', () => {
  const paths: StatePath<Snapshot, ConnectionEvent>[] = getShortestPaths(connectionMachine, traversal);

  it('reaches every state node by some path', () => {
    const unreached = getStateNodes(connectionMachine.root)
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
    const adjacency: AdjacencyMap<Snapshot, ConnectionEvent> = getAdjacencyMap(connectionMachine, traversal);
    const pathTo = new Map(paths.map((p) => [key(p.state), p]));
    let edges = 0;
    for (const vertex of Object.values(adjacency) as AdjacencyValue<Snapshot, ConnectionEvent>[]) {
      const prefix = pathTo.get(key(vertex.state));
      expect(prefix, `a path to ${key(vertex.state)}`).toBeDefined();
      for (const edge of Object.values(vertex.transitions) as { event: ConnectionEvent; state: Snapshot }[]) {
        const actor = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
        expect(key(actor.getSnapshot())).toBe(key(edge.state));
        actor.stop();
        edges += 1;
      }
    }
    expect(edges).toBeGreaterThan(50);
    console.info(`connection machine: ${paths.length} shortest paths, ${edges} edges replayed`);
  });
});

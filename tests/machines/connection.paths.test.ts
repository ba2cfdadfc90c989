import { vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { backoffDelay, connectionMachine, type ConnectionEvent } from '../../machines/account/connection.machine.ts';
import type { SocketEvent } from '../../src/lib/ports/realtime.ts';
import { fakeSocket, settle } from './connection.fakes.ts';
import { describeMachinePaths } from './machine-paths.ts';

/**
 * Path tests: every shortest path and every edge of the connection
 * machine's graph is replayed on the running machine with the fake socket; delayed
 * transitions are taken by advancing fake timers, requests by settling the fake.
 */

type Snapshot = SnapshotFrom<typeof connectionMachine>;
type GraphEvent = ConnectionEvent | { type: string; error?: unknown; output?: unknown };

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
  { type: 'xstate.done.actor.reconnect', output: 'connecting' },
  { type: 'xstate.done.actor.reconnect', output: 'open' },
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
    else if (event.type === 'xstate.done.actor.reconnect')
      await socket.finishReconnect('output' in event && event.output === 'open' ? 'open' : 'done');
    else if (event.type === 'xstate.error.actor.reconnect') await socket.finishReconnect('error');
    else if (event.type === 'connection.retry') actor.send(event as ConnectionEvent);
    else socket.emit(event as SocketEvent);
    await settle();
  }
  return actor;
}

const key = (snapshot: Snapshot) => JSON.stringify({ value: snapshot.value, context: snapshot.context });

describeMachinePaths('connection machine', {
  machine: connectionMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 50,
  fakeTimers: true,
});

import { createActor, type SnapshotFrom } from 'xstate';
import { canvasPresenceMachine, type PresenceEvent } from '../../machines/open-machine/canvas-presence.machine.ts';
import type { PresenceFact } from '../../src/lib/ports/canvas-presence.ts';
import { describeMachinePaths } from './machine-paths.ts';
import { BOB, fakeCanvasChannel, MACHINE, ME, peer } from './canvas-presence.fakes.ts';

/**
 * Path tests for the canvas presence machine: every mode reached,
 * every shortest path and every edge replayed on the running machine, facts pushed
 * through the fake channel and intents sent as a view would. One peer (Bob) who comes and
 * goes keeps the graph finite while covering sync, cursors, views and follow mode.
 */

type Snapshot = SnapshotFrom<typeof canvasPresenceMachine>;

const FACTS = new Set<string>(['presence.joined', 'presence.lost', 'presence.synced', 'cursor.moved', 'view.moved']);

const events: PresenceEvent[] = [
  { type: 'presence.joined' },
  { type: 'presence.lost', message: 'The live connection closed' },
  { type: 'presence.synced', peers: [peer(ME, ['mine']), peer(BOB, ['b'])] },
  { type: 'presence.synced', peers: [peer(ME)] },
  { type: 'cursor.moved', userId: BOB, at: { x: 1, y: 2 } },
  { type: 'cursor.moved', userId: BOB, at: null },
  { type: 'view.moved', userId: BOB, view: { x: 3, y: 4, zoom: 2 } },
  { type: 'presence.follow', userId: BOB },
  { type: 'presence.follow', userId: ME },
  { type: 'presence.unfollow' },
  { type: 'presence.select', selection: ['s1'] },
  { type: 'presence.select', selection: [] },
  { type: 'presence.point', at: { x: 5, y: 6 } },
  { type: 'presence.look', view: { x: 0, y: 0, zoom: 1 } },
];

const key = (snapshot: Snapshot) => {
  const { peers, following, selection, error } = snapshot.context;
  return JSON.stringify({ value: snapshot.value, peers, following, selection, error });
};

const traversal = {
  events,
  // A refused follow (of oneself, or of Bob while he is away) is no edge; the unit tests cover refusals.
  filterEvents: (snapshot: Snapshot, event: PresenceEvent) => snapshot.can(event),
  serializeState: key,
  serializeEvent: (event: PresenceEvent) => JSON.stringify(event),
  input: { machineId: MACHINE, userId: ME },
};

async function replay(steps: readonly PresenceEvent[]) {
  const channel = fakeCanvasChannel();
  const actor = createActor(canvasPresenceMachine.provide({ actors: channel.actors }), {
    input: { machineId: MACHINE, userId: ME },
  }).start();
  for (const event of steps) {
    if (FACTS.has(event.type)) channel.emit(event as PresenceFact);
    else actor.send(event);
  }
  return Promise.resolve(actor);
}

describeMachinePaths('canvas presence machine', {
  machine: canvasPresenceMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 100,
});

import { createActor, type SnapshotFrom } from 'xstate';
import { testPlaybackMachine, type PlaybackEvent } from '../../machines/open-machine/test-playback.machine.ts';
import type { PlaybackFact } from '../../src/lib/ports/test-playback.ts';
import { describeMachinePaths } from './machine-paths.ts';
import { BOB, fakePlaybackChannel, MACHINE, ME, playOf, shown } from './test-playback.fakes.ts';

/**
 * Path tests for the test playback machine: every state reached, every shortest path and
 * every edge replayed on the running machine, facts pushed through the fake channel and
 * intents sent as the Tests panel would. One other player (Bob) with two plays and this
 * person's own play keep the graph finite.
 */

type Snapshot = SnapshotFrom<typeof testPlaybackMachine>;

const FACTS = new Set<string>([
  'playback.joined',
  'playback.lost',
  'playback.played',
  'playback.stopped',
  'playback.left',
  'playback.asked',
]);

const events: PlaybackEvent[] = [
  { type: 'playback.joined' },
  { type: 'playback.lost', message: 'The live connection closed' },
  { type: 'playback.played', play: playOf(BOB, 'Bob path') },
  { type: 'playback.played', play: playOf(BOB, 'Bob other path', 1) },
  { type: 'playback.played', play: playOf(ME, 'echo') },
  { type: 'playback.stopped', userId: BOB },
  { type: 'playback.left', userId: BOB },
  { type: 'playback.asked', userId: BOB },
  { type: 'playback.show', play: shown('mine', 1) },
  { type: 'playback.show', play: null },
  { type: 'playback.unwatch', userId: BOB },
];

const key = (snapshot: Snapshot) => {
  const { plays, unwatched, mine, error } = snapshot.context;
  return JSON.stringify({ value: snapshot.value, plays, unwatched, mine, error });
};

const traversal = {
  events,
  filterEvents: (snapshot: Snapshot, event: PlaybackEvent) => snapshot.can(event),
  serializeState: key,
  serializeEvent: (event: PlaybackEvent) => JSON.stringify(event),
  input: { machineId: MACHINE, userId: ME },
};

async function replay(steps: readonly PlaybackEvent[]) {
  const channel = fakePlaybackChannel();
  const actor = createActor(testPlaybackMachine.provide({ actors: channel.actors }), {
    input: { machineId: MACHINE, userId: ME },
  }).start();
  for (const event of steps) {
    if (FACTS.has(event.type)) channel.emit(event as PlaybackFact);
    else actor.send(event);
  }
  return Promise.resolve(actor);
}

describeMachinePaths('test playback machine', {
  machine: testPlaybackMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 40,
});

import { createActor, createMachine, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { timelineMachine, type TimelineEvent } from '../../machines/open-machine/timeline.machine.ts';
import type { TimelineFact } from '../../src/lib/ports/timeline.ts';
import { describeMachinePaths, settleRequest, type MachinePaths } from './machine-paths.ts';
import { fakeTimelinePort, MACHINE, MARK, ok, OPS, refused, settle, START } from './timeline.fakes.ts';

/**
 * Path tests for the timeline machine: every state node reached, every shortest path
 * and every edge replayed on the running machine with the fake port (reads settled,
 * facts pushed, intents and the open machine's notices sent). The log stays within two
 * ops and the other entries within three, so the graph is finite.
 */

type Snapshot = SnapshotFrom<typeof timelineMachine>;
type GraphEvent = TimelineEvent | { type: string; output?: unknown; error?: unknown };

const AT = '2026-11-24T13:30:00.000Z';
const FACTS = new Set(['timeline.simulationStarted', 'timeline.eventsSent', 'timeline.subscribed', 'timeline.lost']);

const events: GraphEvent[] = [
  { type: 'xstate.done.actor.readOps', output: ok(OPS.slice(0, 1)) },
  { type: 'xstate.done.actor.readOps', output: ok(OPS) },
  { type: 'xstate.done.actor.readOps', output: refused('Network down') },
  { type: 'xstate.error.actor.readOps', error: new Error('readOps crashed') },
  { type: 'xstate.done.actor.readSimulations', output: ok({ starts: [START], marks: [] }) },
  { type: 'xstate.done.actor.readSimulations', output: refused('Network down') },
  { type: 'xstate.error.actor.readSimulations', error: new Error('readSimulations crashed') },
  { type: 'timeline.headMoved', version: 2 },
  { type: 'timeline.peersChanged', userIds: ['u-ada'], at: AT },
  { type: 'timeline.peersChanged', userIds: [], at: AT },
  { type: 'timeline.simulationStarted', simulation: START },
  { type: 'timeline.eventsSent', marks: [MARK] },
  { type: 'timeline.subscribed' },
  { type: 'timeline.lost' },
  { type: 'timeline.filter.toggle', kind: 'edit' },
  { type: 'timeline.filter.person', person: 'u-ada' },
  { type: 'timeline.filter.person', person: null },
  { type: 'timeline.open', key: 'edit:1' },
  { type: 'timeline.open', key: 'edit:2' },
  { type: 'timeline.close' },
  { type: 'timeline.restore' },
  { type: 'timeline.retry' },
];

function key(snapshot: Snapshot): string {
  const { history, head, others, present, error, preview, filter } = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    version: history.version,
    head,
    others: others.map((e) => e.key),
    present,
    error,
    preview: preview?.entry.key ?? null,
    filter,
  });
}

const traversal = {
  events: events as TimelineEvent[],
  filterEvents: (snapshot: Snapshot, event: TimelineEvent) => {
    if (!snapshot.can(event)) return false;
    const { others, error, preview, filter, present } = snapshot.context;
    const type = event.type as string;
    const quiet = snapshot.matches({ edits: 'idle', simulations: 'live' });
    const unfiltered = filter.kinds.length === 0 && filter.person === null;
    const plain = error === null && preview === null && unfiltered;
    // Entries, joins and the filter are explored from a quiet, loaded timeline only, time travel without them.
    if (type === 'timeline.peersChanged' || type === 'timeline.simulationStarted' || type === 'timeline.eventsSent')
      return quiet && plain && others.length < 2 && (type !== 'timeline.peersChanged' || present.length < 2);
    // The filter on and off again (kinds toggle; a person chosen, then everyone).
    if (type.startsWith('timeline.filter.')) return quiet && error === null && preview === null && others.length === 0;
    if (type.startsWith('timeline.open') || type === 'timeline.close' || type === 'timeline.restore')
      return others.length === 0 && unfiltered && error === null;
    if (type.startsWith('xstate.') && !type.endsWith('readOps') && !type.endsWith('readSimulations')) return false;
    return true;
  },
  serializeState: key,
  serializeEvent: (event: TimelineEvent) => JSON.stringify(event),
  input: { machineId: MACHINE },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeTimelinePort();
  // Restore is sent to the open machine: a parent that swallows it stands in.
  const parent = createMachine({
    invoke: {
      id: 'timeline',
      src: timelineMachine.provide({ actors: fake.actors }),
      input: ({ self }) => ({ machineId: MACHINE, editor: self }),
    },
  });
  const root = createActor(parent).start();
  const actor = root.getSnapshot().children.timeline as ActorRefFrom<typeof timelineMachine>;
  for (const event of steps) {
    if (await settleRequest(fake, event)) continue;
    if (FACTS.has(event.type)) fake.emit(event as TimelineFact);
    else actor.send(event as TimelineEvent);
    await settle();
  }
  return { getSnapshot: () => actor.getSnapshot(), stop: () => root.stop() };
}

const machine = timelineMachine as unknown as MachinePaths<Snapshot, TimelineEvent, { machineId: string }>['machine'];

describeMachinePaths('timeline machine', {
  machine,
  traversal,
  replay,
  observe: key,
  minEdges: 60,
  timeout: 240_000,
});

import { createActor, type SnapshotFrom } from 'xstate';
import {
  testsMachine,
  type SimulationRecordedEvent,
  type TestsIntent,
} from '../../machines/open-machine/tests.machine.ts';
import type { TestsStreamEvent } from '../../src/lib/ports/machine-tests.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
import { fakeTestsPort, MACHINE, ok, refused, savedTest, settle, testRun, toggle } from './tests.fakes.ts';

/**
 * Path tests (house style rule 12) for the Tests panel machine: every state node reached,
 * every shortest path and every edge replayed on the running machine with the fake port.
 * The list holds at most one test and one run, so the graph is finite.
 */

type Snapshot = SnapshotFrom<typeof testsMachine>;
type Event = TestsIntent | TestsStreamEvent | SimulationRecordedEvent;
type GraphEvent = Event | { type: string; output?: unknown; error?: unknown };

const INVOKES: Record<string, string> = {
  listTests: 'listTests',
  generatePaths: '0.tests.generation.generating',
  saveTest: '0.tests.requests.saving',
  recordRun: '0.tests.requests.running',
};
const NAMES = Object.fromEntries(Object.entries(INVOKES).map(([k, v]) => [v, k]));
const done = (request: string, output: unknown): GraphEvent => ({
  type: `xstate.done.actor.${INVOKES[request]}`,
  output,
});
const crashed = (request: string): GraphEvent => ({
  type: `xstate.error.actor.${INVOKES[request]}`,
  error: new Error(`${request} crashed`),
});

const path = {
  id: 'p1',
  kind: 'shortest' as const,
  target: 'busy',
  start: ['idle'],
  steps: savedTest('x').script.steps,
  taken: [['t1']],
  words: 'start in idle → GO → busy',
};

const events: GraphEvent[] = [
  { type: 'tests.definitionChanged', definition: toggle, version: 2 },
  done('listTests', ok({ tests: [savedTest('a')], runs: [testRun('r', 'a')] })),
  done('listTests', refused('Network down')),
  crashed('listTests'),
  { type: 'tests.subscribed' },
  { type: 'tests.simulationRecorded', simulation: { id: 's-1', context: null, entries: [] } },
  { type: 'tests.saved', test: savedTest('b') },
  { type: 'tests.deleted', testId: 'a' },
  { type: 'tests.ran', run: testRun('rr', 'a', 'fail') },
  { type: 'tests.generate' },
  done('generatePaths', { paths: [path], error: null }),
  done('generatePaths', { paths: [], error: 'more than 500 paths; choose a target state or a depth' }),
  crashed('generatePaths'),
  { type: 'tests.save', name: 'GO', script: savedTest('x').script, context: null, simulationId: null },
  done('saveTest', ok(savedTest('c'))),
  done('saveTest', refused('Not a member')),
  crashed('saveTest'),
  { type: 'tests.run', testId: 'a' },
  done('recordRun', ok(testRun('r2', 'a'))),
  done('recordRun', refused('Not a member')),
  crashed('recordRun'),
  { type: 'tests.toggleCoverage' },
  { type: 'tests.select', id: 'p1' },
  { type: 'tests.select', id: null },
  { type: 'tests.stepTo', step: 1 },
  { type: 'tests.dismissError' },
];

function key(snapshot: Snapshot): string {
  const { definition, version, tests, runs, paths, coverage, selected, step, error } = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    definition: definition !== null,
    version,
    tests: tests.map((t) => t.id),
    runs: Object.values(runs).map((r) => `${r.testId}:${r.status}`),
    paths: paths.length,
    coverage,
    selected,
    step,
    error,
  });
}

const traversal = {
  events: events as Event[],
  filterEvents: (snapshot: Snapshot, event: Event) => {
    if (!snapshot.can(event)) return false;
    const { tests, runs, error, selected, step, coverage, paths, definition } = snapshot.context;
    const type = event.type as string;
    const settled = snapshot.matches({ list: 'live', generation: 'idle', requests: 'idle' });
    const plain = error === null && selected === null && step === 0 && !coverage && paths.length === 0;
    if (type === 'tests.definitionChanged') return definition === null;
    // Stream facts are explored from a settled, plain panel only, and keep the list within two rows.
    if (type === 'tests.saved') return plain && settled && tests.length < 2;
    if (type === 'tests.deleted') return plain && settled && tests.some((t) => t.id === 'a');
    if (type === 'tests.ran') return plain && settled && Object.keys(runs).length > 0;
    if (type === 'tests.subscribed') return plain && settled && tests.length === 0;
    if (type.startsWith('xstate.error.actor.')) return plain;
    if (type.startsWith('xstate.done.actor.')) return true;
    if (type === 'tests.toggleCoverage' || type === 'tests.select' || type === 'tests.stepTo')
      return error === null && settled && paths.length > 0;
    if (type === 'tests.dismissError') return error !== null;
    // Requests start from a settled panel with no error or selection.
    return error === null && settled && !coverage && selected === null && step === 0;
  },
  serializeState: key,
  serializeEvent: (event: Event) => JSON.stringify(event),
  input: { machineId: MACHINE },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeTestsPort();
  const actor = createActor(testsMachine.provide({ actors: fake.actors }), { input: { machineId: MACHINE } }).start();
  for (const event of steps) {
    const match = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (match) {
      const name = NAMES[match[2] as string];
      if (!name) throw new Error(`no request is named ${match[2]}`);
      await settleRequest(fake, { ...event, type: `xstate.${match[1]}.actor.${name}` });
    } else if (
      event.type.startsWith('tests.') &&
      ['saved', 'deleted', 'ran', 'subscribed'].includes(event.type.slice(6))
    )
      fake.emit(event as TestsStreamEvent);
    else actor.send(event as Event);
    await settle();
  }
  return actor;
}

describeMachinePaths('tests machine', {
  machine: testsMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 40,
  timeout: 120_000,
});

import { throwError } from 'rxjs';
import { assertEvent, assign, fromEventObservable, fromPromise, setup } from 'xstate';
import type { JsonObject, MachineDefinition } from '../src/lib/model/types.ts';
import type {
  RecordRunRequest,
  SaveTestRequest,
  SavedTest,
  TestRun,
  TestsResult,
  TestsStreamEvent,
} from '../src/lib/ports/machine-tests.ts';
import type { RecordedSimulation } from '../src/lib/testing/coverage-sources.ts';
import { runTest } from '../src/lib/testing/run.ts';
import type { PathKind, TestPath, TestScript } from '../src/lib/testing/types.ts';
import { notProvided } from './shared.ts';

/**
 * The Tests panel of one open machine: its saved tests and their newest runs (rows,
 * followed live, so a run anyone makes shows to the whole room), the generated paths
 * (made off the page's thread by `generatePaths`, a Web Worker in the browser), the
 * coverage switch, and a selection played step by step on the diagram. Running a test
 * replays it here on the current definition (src/lib/testing) and stores the result.
 */

export type TestsIntent =
  /** Shortest paths to every state (the default), simple paths to `target`, or a transition cover. */
  | { type: 'tests.generate'; kind?: PathKind; target?: string | null }
  | {
      type: 'tests.save';
      name: string;
      script: TestScript;
      context: JsonObject | null;
      simulationId: string | null;
      /** The version the script was recorded on (a simulation's); the open version when absent. */
      machineVersion?: number;
    }
  | { type: 'tests.run'; testId: string }
  | { type: 'tests.toggleCoverage' }
  | { type: 'tests.select'; id: string | null }
  | { type: 'tests.stepTo'; step: number }
  | { type: 'tests.dismissError' }
  /** The open machine's definition and version changed (an edit, anyone's). */
  | { type: 'tests.definitionChanged'; definition: MachineDefinition; version: number };

/** A simulation of this machine was recorded further while the panel is open: its whole log so far. */
export interface SimulationRecordedEvent {
  type: 'tests.simulationRecorded';
  simulation: RecordedSimulation;
}

export interface GenerateRequest {
  definition: MachineDefinition;
  kind: PathKind;
  target: string | null;
}

export interface GeneratedPaths {
  paths: TestPath[];
  error: string | null;
}

export interface TestsContext {
  machineId: string;
  definition: MachineDefinition | null;
  version: number;
  tests: SavedTest[];
  /** The newest run of each test, by test id. */
  runs: Record<string, TestRun>;
  paths: TestPath[];
  coverage: boolean;
  /** Recorded simulations counted by coverage, besides the saved tests. */
  simulations?: RecordedSimulation[];
  /** The path or saved test shown on the diagram, and the step shown (0 = the start). */
  selected: string | null;
  step: number;
  error: string | null;
}

const newest = (runs: TestRun[]): Record<string, TestRun> => {
  const out: Record<string, TestRun> = {};
  for (const r of runs) {
    const had = out[r.testId];
    if (!had || had.createdAt < r.createdAt) out[r.testId] = r;
  }
  return out;
};

/** The simulations with `more` in, each one's longest log kept (a log only grows; a late list read may hold less). */
export function withSimulations(
  had: readonly RecordedSimulation[],
  more: readonly RecordedSimulation[],
): RecordedSimulation[] {
  const out = new Map(had.map((s) => [s.id, s]));
  for (const s of more) {
    const known = out.get(s.id);
    if (!known || known.entries.length < s.entries.length) out.set(s.id, s);
  }
  return [...out.values()];
}

const withTest = (tests: SavedTest[], test: SavedTest): SavedTest[] =>
  tests.some((t) => t.id === test.id) ? tests : [...tests, test];

export const testsMachine = setup({
  types: {
    input: {} as { machineId: string },
    context: {} as TestsContext,
    events: {} as TestsIntent | TestsStreamEvent | SimulationRecordedEvent,
    tags: {} as 'loading' | 'generating' | 'busy',
  },
  actors: {
    /** The tests' rows as they change, and (when the app follows them) simulations as they are recorded. */
    testEvents: fromEventObservable<TestsStreamEvent | SimulationRecordedEvent, { machineId: string }>(() =>
      throwError(() => notProvided('tests', 'testEvents')),
    ),
    /** The saved tests and runs, and (when the app reads them) the room's recorded simulations, for coverage. */
    listTests: fromPromise<
      TestsResult<{ tests: SavedTest[]; runs: TestRun[]; simulations?: RecordedSimulation[] }>,
      { machineId: string }
    >(() => Promise.reject(notProvided('tests', 'listTests'))),
    generatePaths: fromPromise<GeneratedPaths, GenerateRequest>(() =>
      Promise.reject(notProvided('tests', 'generatePaths')),
    ),
    saveTest: fromPromise<TestsResult<SavedTest>, SaveTestRequest>(() =>
      Promise.reject(notProvided('tests', 'saveTest')),
    ),
    recordRun: fromPromise<TestsResult<TestRun>, RecordRunRequest>(() =>
      Promise.reject(notProvided('tests', 'recordRun')),
    ),
  },
  actions: {
    addTest: assign(({ context }, test: SavedTest) => ({ tests: withTest(context.tests, test) })),
    addRun: assign(({ context }, run: TestRun) => ({ runs: newest([...Object.values(context.runs), run]) })),
    setError: assign((_, params: { error: string | null }) => ({ error: params.error })),
  },
  guards: {
    hasDefinition: ({ context }) => context.definition !== null,
  },
}).createMachine({
  id: 'tests',
  context: ({ input }) => ({
    machineId: input.machineId,
    definition: null,
    version: 0,
    tests: [],
    runs: {},
    paths: [],
    coverage: false,
    selected: null,
    step: 0,
    error: null,
  }),
  invoke: { src: 'testEvents', input: ({ context }) => ({ machineId: context.machineId }) },
  on: {
    'tests.definitionChanged': {
      actions: assign(({ event }) => ({ definition: event.definition, version: event.version })),
    },
    'tests.saved': { actions: { type: 'addTest', params: ({ event }) => event.test } },
    'tests.deleted': {
      actions: assign(({ context, event }) => ({ tests: context.tests.filter((t) => t.id !== event.testId) })),
    },
    'tests.ran': { actions: { type: 'addRun', params: ({ event }) => event.run } },
    'tests.toggleCoverage': { actions: assign(({ context }) => ({ coverage: !context.coverage })) },
    'tests.simulationRecorded': {
      actions: assign(({ context, event }) => ({
        simulations: withSimulations(context.simulations ?? [], [event.simulation]),
      })),
    },
    'tests.select': { actions: assign(({ event }) => ({ selected: event.id, step: 0 })) },
    'tests.stepTo': { actions: assign(({ event }) => ({ step: Math.max(0, Math.floor(event.step)) })) },
    'tests.dismissError': { actions: { type: 'setError', params: { error: null } } },
  },
  type: 'parallel',
  states: {
    list: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            src: 'listTests',
            input: ({ context }) => ({ machineId: context.machineId }),
            onDone: {
              target: 'live',
              actions: assign(({ context, event }) =>
                event.output.ok
                  ? {
                      tests: event.output.value.tests,
                      runs: newest(event.output.value.runs),
                      // A simulation recorded further while the list was read keeps its longer log.
                      simulations: withSimulations(event.output.value.simulations ?? [], context.simulations ?? []),
                    }
                  : { error: event.output.message },
              ),
            },
            onError: { target: 'live', actions: { type: 'setError', params: { error: "Couldn't load the tests." } } },
          },
        },
        // A (re)subscribed stream may have missed rows: read the list again.
        live: { on: { 'tests.subscribed': 'loading' } },
      },
    },
    generation: {
      initial: 'idle',
      states: {
        idle: { on: { 'tests.generate': { guard: 'hasDefinition', target: 'generating' } } },
        generating: {
          tags: ['generating'],
          invoke: {
            src: 'generatePaths',
            input: ({ context, event }) => {
              assertEvent(event, 'tests.generate');
              return {
                definition: context.definition as MachineDefinition,
                kind: event.kind ?? 'shortest',
                target: event.target ?? null,
              };
            },
            onDone: {
              target: 'idle',
              actions: assign(({ event }) => ({ paths: event.output.paths, error: event.output.error })),
            },
            onError: {
              target: 'idle',
              actions: { type: 'setError', params: { error: "Couldn't generate paths." } },
            },
          },
        },
      },
    },
    requests: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'tests.save': 'saving',
            'tests.run': { guard: 'hasDefinition', target: 'running' },
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            src: 'saveTest',
            input: ({ context, event }) => {
              assertEvent(event, 'tests.save');
              return {
                machineId: context.machineId,
                name: event.name,
                script: event.script,
                context: event.context,
                machineVersion: event.machineVersion ?? context.version,
                source: event.simulationId ? 'simulation' : 'path',
                simulationId: event.simulationId,
              };
            },
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) =>
                event.output.ok
                  ? { tests: withTest(context.tests, event.output.value) }
                  : { error: event.output.message },
              ),
            },
            onError: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't save the test." } } },
          },
        },
        running: {
          tags: ['busy'],
          invoke: {
            src: 'recordRun',
            input: ({ context, event }) => {
              assertEvent(event, 'tests.run');
              const test = context.tests.find((t) => t.id === event.testId);
              const outcome = test
                ? runTest(context.definition as MachineDefinition, test.script, test.context)
                : { status: 'fail' as const, step: 0, message: 'the test no longer exists', missingState: false };
              return {
                testId: event.testId,
                machineId: context.machineId,
                machineVersion: context.version,
                status: outcome.status,
                failedStep: outcome.status === 'fail' ? outcome.step : null,
                message: outcome.status === 'fail' ? outcome.message : null,
              };
            },
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) =>
                event.output.ok
                  ? { runs: newest([...Object.values(context.runs), event.output.value]) }
                  : { error: event.output.message },
              ),
            },
            onError: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't run the test." } } },
          },
        },
      },
    },
  },
});

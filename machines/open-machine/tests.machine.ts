import { assertEvent, assign, setup } from 'xstate';
import type { JsonObject, MachineDefinition } from '../../src/lib/model/types.ts';
import type {
  RecordRunRequest,
  SaveTestRequest,
  SavedTest,
  TestRun,
  TestsResult,
  TestsStreamEvent,
} from '../../src/lib/ports/machine-tests.ts';
import type { PlayShown } from '../../src/lib/ports/test-playback.ts';
import type { Coverage } from '../../src/lib/testing/coverage.ts';
import {
  coverageSources,
  type CoverageSources,
  type RecordedSimulation,
} from '../../src/lib/testing/coverage-sources.ts';
import { CoverageTracker } from '../../src/lib/testing/coverage-tracker.ts';
import { playOf, samePlay, stalenessOf } from '../../src/lib/testing/panel.ts';
import { runTest } from '../../src/lib/testing/run.ts';
import type { Staleness } from '../../src/lib/testing/staleness.ts';
import type { PathKind, TestPath, TestScript } from '../../src/lib/testing/types.ts';
import { byMachine, listRegion, output, requestNotProvided, requestValue, streamNotProvided } from '../shared.ts';

/**
 * The Tests panel of one open machine: its saved tests and their newest runs (rows,
 * followed live, so a run anyone makes shows to the whole room), the generated paths
 * (made off the page's thread by `generatePaths`, a Web Worker in the browser), the
 * coverage switch, and a selection played step by step on the diagram. Running a test
 * replays it here on the current definition (src/lib/testing) and stores the result.
 * The open machine invokes it (`systemId: 'tests'`) and tells it every new definition and
 * version; it keeps what the panel and the diagram show: each test's staleness, the
 * coverage (by a tracker that reruns only the steps an edit touched) while the switch is
 * on, and the play selected (which the open machine shares with the room).
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

export interface TestsInput {
  machineId: string;
  /** The open definition and its version (null / 0 until the document has loaded). */
  definition?: MachineDefinition | null;
  version?: number;
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
  /** Each saved test's staleness on this version, by test id (src/lib/testing/panel.ts). */
  stale: Record<string, Staleness>;
  /** What coverage counts: the sound saved tests and the recorded simulations. */
  sources: CoverageSources;
  /** Keeps coverage across edits (src/lib/testing/coverage-tracker.ts); one per panel. */
  tracker: CoverageTracker;
  /** Coverage of the definition while the switch is on, else null. */
  measured: Coverage | null;
  /** The selected path or test at the step shown (null: nothing played here). */
  play: PlayShown | null;
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

type Listed = TestsResult<{ tests: SavedTest[]; runs: TestRun[]; simulations?: RecordedSimulation[] }>;

/** A malformed stored test (its row says what is wrong) counts for nothing. */
const sourcesOf = (tests: readonly SavedTest[], simulations: readonly RecordedSimulation[]): CoverageSources =>
  coverageSources(
    tests.filter((t) => !t.problem),
    simulations,
  );

/** What follows from the tests, runs, sources, definition and selection: staleness, coverage, the play. */
function derived(c: TestsContext): Pick<TestsContext, 'stale' | 'measured' | 'play'> {
  const play = playOf(c.selected, c.step, c.paths, c.tests);
  return {
    stale: stalenessOf(c.definition, c.version, c.tests, c.runs),
    measured: c.coverage && c.definition ? c.tracker.compute(c.definition, c.sources.runs) : null,
    // The same play keeps its object, so listeners see no change.
    play: samePlay(c.play, play) ? c.play : play,
  };
}

export const testsMachine = setup({
  types: {
    input: {} as TestsInput,
    context: {} as TestsContext,
    events: {} as TestsIntent | TestsStreamEvent | SimulationRecordedEvent,
    tags: {} as 'loading' | 'generating' | 'busy',
  },
  actors: {
    /** The tests' rows as they change, and (when the app follows them) simulations as they are recorded. */
    testEvents: streamNotProvided<TestsStreamEvent | SimulationRecordedEvent, { machineId: string }>(
      'tests',
      'testEvents',
    ),
    /** The saved tests and runs, and (when the app reads them) the room's recorded simulations, for coverage. */
    listTests: requestNotProvided<Listed, { machineId: string }>('tests', 'listTests'),
    generatePaths: requestNotProvided<GeneratedPaths, GenerateRequest>('tests', 'generatePaths'),
    saveTest: requestNotProvided<TestsResult<SavedTest>, SaveTestRequest>('tests', 'saveTest'),
    recordRun: requestNotProvided<TestsResult<TestRun>, RecordRunRequest>('tests', 'recordRun'),
  },
  actions: {
    setDefinition: assign((_, params: { definition: MachineDefinition; version: number }) => params),
    addTest: assign(({ context }, test: SavedTest) => {
      const tests = withTest(context.tests, test);
      return { tests, sources: sourcesOf(tests, context.simulations ?? []) };
    }),
    removeTest: assign(({ context }, testId: string) => {
      const tests = context.tests.filter((t) => t.id !== testId);
      return { tests, sources: sourcesOf(tests, context.simulations ?? []) };
    }),
    addRun: assign(({ context }, run: TestRun) => ({ runs: newest([...Object.values(context.runs), run]) })),
    toggleCoverage: assign(({ context }) => ({ coverage: !context.coverage })),
    addSimulation: assign(({ context }, simulation: RecordedSimulation) => {
      const simulations = withSimulations(context.simulations ?? [], [simulation]);
      return { simulations, sources: sourcesOf(context.tests, simulations) };
    }),
    select: assign((_, id: string | null) => ({ selected: id, step: 0 })),
    stepTo: assign((_, step: number) => ({ step: Math.max(0, Math.floor(step)) })),
    setError: assign((_, params: { error: string | null }) => ({ error: params.error })),
    keepList: assign(({ context }, output: Listed) => {
      if (!output.ok) return { error: output.message };
      // A simulation recorded further while the list was read keeps its longer log.
      const simulations = withSimulations(output.value.simulations ?? [], context.simulations ?? []);
      const tests = output.value.tests;
      return { tests, runs: newest(output.value.runs), simulations, sources: sourcesOf(tests, simulations) };
    }),
    keepPaths: assign((_, output: GeneratedPaths) => ({ paths: output.paths, error: output.error })),
    keepSaved: assign(({ context }, output: TestsResult<SavedTest>) => {
      if (!output.ok) return { error: output.message };
      const tests = withTest(context.tests, output.value);
      return { tests, sources: sourcesOf(tests, context.simulations ?? []) };
    }),
    keepRun: assign(({ context }, output: TestsResult<TestRun>) =>
      output.ok ? { runs: newest([...Object.values(context.runs), output.value]) } : { error: output.message },
    ),
    /** Staleness, coverage and the play, again after whatever changed them. */
    derive: assign(({ context }) => derived(context)),
  },
  guards: {
    hasDefinition: ({ context }) => context.definition !== null,
  },
}).createMachine({
  id: 'tests',
  context: ({ input }) => {
    const context: TestsContext = {
      machineId: input.machineId,
      definition: input.definition ?? null,
      version: input.version ?? 0,
      tests: [],
      runs: {},
      paths: [],
      coverage: false,
      selected: null,
      step: 0,
      error: null,
      stale: {},
      sources: sourcesOf([], []),
      tracker: new CoverageTracker(),
      measured: null,
      play: null,
    };
    return { ...context, ...derived(context) };
  },
  invoke: { src: 'testEvents', input: ({ context }) => ({ machineId: context.machineId }) },
  on: {
    'tests.definitionChanged': {
      actions: [
        {
          type: 'setDefinition',
          params: ({ event }) => ({ definition: event.definition, version: event.version }),
        },
        'derive',
      ],
    },
    'tests.saved': { actions: [{ type: 'addTest', params: ({ event }) => event.test }, 'derive'] },
    'tests.deleted': { actions: [{ type: 'removeTest', params: ({ event }) => event.testId }, 'derive'] },
    'tests.ran': { actions: [{ type: 'addRun', params: ({ event }) => event.run }, 'derive'] },
    'tests.toggleCoverage': { actions: ['toggleCoverage', 'derive'] },
    'tests.simulationRecorded': {
      actions: [{ type: 'addSimulation', params: ({ event }) => event.simulation }, 'derive'],
    },
    'tests.select': { actions: [{ type: 'select', params: ({ event }) => event.id }, 'derive'] },
    'tests.stepTo': { actions: [{ type: 'stepTo', params: ({ event }) => event.step }, 'derive'] },
    'tests.dismissError': { actions: { type: 'setError', params: { error: null } } },
  },
  type: 'parallel',
  states: {
    // A (re)subscribed stream may have missed rows: read the list again.
    list: listRegion({
      read: {
        id: 'listTests',
        src: 'listTests',
        input: byMachine,
        ...requestValue({
          done: { target: 'live', actions: [{ type: 'keepList', params: output }, 'derive'] },
          threw: { target: 'live', actions: { type: 'setError', params: { error: "Couldn't load the tests." } } },
        }),
      },
      again: { 'tests.subscribed': 'loading' },
      states: {},
    }),
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
            ...requestValue({
              done: { target: 'idle', actions: [{ type: 'keepPaths', params: output }, 'derive'] },
              threw: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't generate paths." } } },
            }),
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
            ...requestValue({
              done: { target: 'idle', actions: [{ type: 'keepSaved', params: output }, 'derive'] },
              threw: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't save the test." } } },
            }),
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
            ...requestValue({
              done: { target: 'idle', actions: [{ type: 'keepRun', params: output }, 'derive'] },
              threw: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't run the test." } } },
            }),
          },
        },
      },
    },
  },
});

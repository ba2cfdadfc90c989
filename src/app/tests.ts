import { concatMap, EMPTY, filter, from, groupBy, map, merge, mergeMap, of, type Observable } from 'rxjs';
import { fromEventObservable, fromPromise } from 'xstate';
import {
  testsMachine,
  type GeneratedPaths,
  type GenerateRequest,
  type SimulationRecordedEvent,
} from '../../machines/open-machine/tests.machine.ts';
import type {
  MachineTestsPort,
  RecordRunRequest,
  SaveTestRequest,
  SavedTest,
  TestRun,
  TestsResult,
} from '../lib/ports/machine-tests.ts';
import type { SimulationPort } from '../lib/ports/simulation.ts';
import type { RecordedSimulation } from '../lib/testing/coverage-sources.ts';

type ListedTests = TestsResult<{ tests: SavedTest[]; runs: TestRun[]; simulations?: RecordedSimulation[] }>;

/** Every simulation of a machine with its whole log (a log that cannot be read counts as empty). */
async function recorded(port: SimulationPort, machineId: string): Promise<RecordedSimulation[]> {
  const list = await port.list(machineId);
  if (!list.ok) return [];
  return Promise.all(
    list.value.map(async (sim) => {
      const log = await port.eventsSince(sim.id, 0);
      return { id: sim.id, context: sim.context, entries: log.ok ? log.value : [] };
    }),
  );
}

/**
 * Simulations as they are recorded while the panel is open, from the machine's list of
 * simulations (each event sent moves a simulation's last_seq): each one's whole log so
 * far, read on from where the last read stopped, one read at a time per simulation.
 */
export function recordedChanges(port: SimulationPort, machineId: string): Observable<SimulationRecordedEvent> {
  return port.simulations$(machineId).pipe(
    map((e) => e.simulation),
    filter((sim) => sim.lastSeq > 0),
    groupBy((sim) => sim.id),
    mergeMap((one) => {
      let entries: RecordedSimulation['entries'] = [];
      let seq = 0;
      return one.pipe(
        concatMap((sim) => {
          if (sim.lastSeq <= seq) return EMPTY;
          return from(port.eventsSince(sim.id, seq)).pipe(
            concatMap((log): Observable<SimulationRecordedEvent> => {
              if (!log.ok || log.value.length === 0) return EMPTY;
              entries = [...entries, ...log.value];
              seq = log.value[log.value.length - 1]?.seq ?? seq;
              return of({
                type: 'tests.simulationRecorded' as const,
                simulation: { id: sim.id, context: sim.context, entries },
              });
            }),
          );
        }),
      );
    }),
  );
}

/** The Tests panel machine's actors over the saved-tests port and a path generator (a worker in the browser). */
export function testsLogic(
  port: MachineTestsPort,
  generate: (request: GenerateRequest, signal: AbortSignal) => Promise<GeneratedPaths>,
  simulations?: SimulationPort,
) {
  return testsMachine.provide({
    actors: {
      // Saved tests' rows, and the simulations recorded while the panel is open (counted by coverage at once).
      testEvents: fromEventObservable(({ input }: { input: { machineId: string } }) =>
        simulations
          ? merge(port.changes$(input.machineId), recordedChanges(simulations, input.machineId))
          : port.changes$(input.machineId),
      ),
      // The list (read again whenever the stream resubscribes) carries the recorded simulations for coverage.
      listTests: fromPromise(async ({ input }: { input: { machineId: string } }): Promise<ListedTests> => {
        const [list, sims] = await Promise.all([
          port.list(input.machineId),
          simulations ? recorded(simulations, input.machineId) : Promise.resolve([]),
        ]);
        return list.ok ? { ok: true as const, value: { ...list.value, simulations: sims } } : list;
      }),
      generatePaths: fromPromise(({ input, signal }: { input: GenerateRequest; signal: AbortSignal }) =>
        generate(input, signal),
      ),
      saveTest: fromPromise(({ input }: { input: SaveTestRequest }) => port.save(input)),
      recordRun: fromPromise(({ input }: { input: RecordRunRequest }) => port.recordRun(input)),
    },
  });
}
export type TestsLogic = ReturnType<typeof testsLogic>;

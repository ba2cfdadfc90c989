import { fromEventObservable, fromPromise } from 'xstate';
import { testsMachine, type GeneratedPaths, type GenerateRequest } from '../../machines/tests.machine.ts';
import type { MachineTestsPort, RecordRunRequest, SaveTestRequest } from '../lib/ports/machine-tests.ts';

/** The Tests panel machine's actors over the saved-tests port and a path generator (a worker in the browser). */
export function testsLogic(
  port: MachineTestsPort,
  generate: (request: GenerateRequest, signal: AbortSignal) => Promise<GeneratedPaths>,
) {
  return testsMachine.provide({
    actors: {
      testEvents: fromEventObservable(({ input }: { input: { machineId: string } }) => port.changes$(input.machineId)),
      listTests: fromPromise(({ input }: { input: { machineId: string } }) => port.list(input.machineId)),
      generatePaths: fromPromise(({ input, signal }: { input: GenerateRequest; signal: AbortSignal }) =>
        generate(input, signal),
      ),
      saveTest: fromPromise(({ input }: { input: SaveTestRequest }) => port.save(input)),
      recordRun: fromPromise(({ input }: { input: RecordRunRequest }) => port.recordRun(input)),
    },
  });
}
export type TestsLogic = ReturnType<typeof testsLogic>;

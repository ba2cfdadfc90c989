import { Subject } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import type {
  RecordRunRequest,
  SaveTestRequest,
  SavedTest,
  TestRun,
  TestsResult,
  TestsStreamEvent,
} from '../../src/lib/ports/machine-tests.ts';
import type {
  GeneratedPaths,
  GenerateRequest,
  SimulationRecordedEvent,
} from '../../machines/open-machine/tests.machine.ts';
import { heldRequests } from './held-requests.ts';

/** A fake saved-tests port: the test pushes stream events with `emit` and settles requests. */

export type TestsRequest = 'listTests' | 'generatePaths' | 'saveTest' | 'recordRun';

export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export function fakeTestsPort() {
  const stream = new Subject<TestsStreamEvent | SimulationRecordedEvent>();
  const held = heldRequests<TestsRequest>(settle);
  return {
    actors: {
      testEvents: fromEventObservable<TestsStreamEvent | SimulationRecordedEvent, { machineId: string }>(() =>
        stream.asObservable(),
      ),
      listTests: held.request<TestsResult<{ tests: SavedTest[]; runs: TestRun[] }>, { machineId: string }>('listTests'),
      generatePaths: held.request<GeneratedPaths, GenerateRequest>('generatePaths'),
      saveTest: held.request<TestsResult<SavedTest>, SaveTestRequest>('saveTest'),
      recordRun: held.request<TestsResult<TestRun>, RecordRunRequest>('recordRun'),
    },
    ...held,
    emit: (event: TestsStreamEvent | SimulationRecordedEvent) => stream.next(event),
  };
}

export const MACHINE = 'm-1';

/** A toggle: GO goes busy, BACK returns to idle. */
export const toggle = importXState(
  { id: 'toggle', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: { on: { BACK: 'idle' } } } },
  { ids: counterIds('t') },
);

export const savedTest = (id: string): SavedTest => ({
  id,
  machineId: MACHINE,
  name: `test ${id}`,
  script: {
    start: ['idle'],
    steps: [{ kind: 'event', type: 'GO', payload: {}, guards: {}, expect: ['busy'] }],
  },
  context: null,
  machineVersion: 1,
  source: 'path',
  createdBy: 'u-ada',
  createdAt: '2026-11-24T09:00:00.000Z',
});

export const testRun = (id: string, testId: string, status: 'pass' | 'fail' = 'pass'): TestRun => ({
  id,
  testId,
  machineVersion: 1,
  status,
  failedStep: status === 'fail' ? 1 : null,
  message: status === 'fail' ? 'expected busy' : null,
  runBy: 'u-ada',
  createdAt: `2026-11-24T09:00:0${id.length}.000Z`,
});

export const ok = <T>(value: T): TestsResult<T> => ({ ok: true, value });
export const refused = (message: string): TestsResult<never> => ({ ok: false, message });

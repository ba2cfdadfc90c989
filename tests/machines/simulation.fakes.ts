import { Observable, Subject } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { counterIds, importXState, type JsonObject } from '../../src/lib/model/index.ts';
import type {
  SendRequest,
  SimListStreamEvent,
  SimLogStreamEvent,
  SimResult,
  SimulationRecord,
} from '../../src/lib/ports/simulation.ts';
import type { GuardValues, SimLogEntry } from '../../src/lib/simulation/index.ts';
import { heldRequests } from './held-requests.ts';

/**
 * A fake simulation port: the test pushes the list and log streams' events with
 * `emitList` / `emitLog`, and settles the request the machine is waiting on.
 */

export type SimulationRequest = 'listSimulations' | 'startSimulation' | 'loadLog' | 'sendEvent' | 'forkSimulation';

export function fakeSimulationPort() {
  const list = new Subject<SimListStreamEvent>();
  const log = new Subject<SimLogStreamEvent>();
  const held = heldRequests<SimulationRequest>(settle);
  const streams = { logOpened: [] as string[], logClosed: 0 };
  return {
    actors: {
      simulationEvents: fromEventObservable<SimListStreamEvent, { machineId: string }>(() => list.asObservable()),
      logEvents: fromEventObservable<SimLogStreamEvent, { simulationId: string }>(
        ({ input }) =>
          new Observable<SimLogStreamEvent>((subscriber) => {
            streams.logOpened.push(input.simulationId);
            const s = log.subscribe(subscriber);
            return () => {
              streams.logClosed += 1;
              s.unsubscribe();
            };
          }),
      ),
      listSimulations: held.request<SimResult<SimulationRecord[]>, { machineId: string }>('listSimulations'),
      startSimulation: held.request<
        SimResult<SimulationRecord>,
        { machineId: string; context: JsonObject | null; guards: GuardValues }
      >('startSimulation'),
      loadLog: held.request<SimResult<SimLogEntry[]>, { simulationId: string; after: number }>('loadLog'),
      sendEvent: held.request<SimResult<{ seq: number }>, SendRequest>('sendEvent'),
      forkSimulation: held.request<
        SimResult<SimulationRecord>,
        { simulationId: string; uptoSeq: number; latest: boolean }
      >('forkSimulation'),
    },
    ...held,
    streams,
    emitList: (event: SimListStreamEvent) => list.next(event),
    emitLog: (event: SimLogStreamEvent) => log.next(event),
  };
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export const MACHINE = 'm-1';

/** A toggle: GO goes busy, and busy times out back to idle after a second. */
export const toggle = importXState(
  { id: 'toggle', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: { after: { 1000: 'idle' } } } },
  { ids: counterIds('t') },
);

export const simulation = (id: string, over: Partial<SimulationRecord> = {}): SimulationRecord => ({
  id,
  machineId: MACHINE,
  projectId: 'p-1',
  machineVersion: 3,
  definition: toggle,
  context: null,
  guards: {},
  createdBy: 'u-ada',
  status: 'running',
  forkedFrom: null,
  forkedAtSeq: null,
  lastSeq: 0,
  createdAt: '2026-11-24T09:00:00.000Z',
  ...over,
});

export const entry = (seq: number, type: string | null = 'GO'): SimLogEntry => ({
  seq,
  kind: type === null ? 'time' : 'event',
  type,
  payload: {},
  guards: {},
  sender: 'u-ada',
});

export const ok = <T>(value: T): SimResult<T> => ({ ok: true, value });
export const refused = (message: string): SimResult<never> => ({ ok: false, error: { code: 'rate_limited', message } });

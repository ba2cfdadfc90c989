import { Subject } from 'rxjs';
import { createMachine, fromEventObservable, type AnyEventObject } from 'xstate';
import type { layoutMachine } from '../../machines/open-machine/layout.machine.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import type { TimelineFact, TimelineResult } from '../../src/lib/ports/timeline.ts';
import type { AuthoredOp, SimulationMark, SimulationStart } from '../../src/lib/timeline/index.ts';
import { heldRequests } from './held-requests.ts';

/**
 * A fake timeline port: reads held until the test settles them, facts pushed with
 * `emit`, and a preview layout that records what it was asked to lay out.
 */

export type TimelineRequest = 'readOps' | 'readSimulations';

export function fakeTimelinePort() {
  const facts = new Subject<TimelineFact>();
  const held = heldRequests<TimelineRequest>(settle);
  const laidOut: AnyEventObject[] = [];
  const previewLayout = createMachine({
    on: { '*': { actions: ({ event }) => laidOut.push(event) } },
  }) as unknown as typeof layoutMachine;
  return {
    actors: {
      readOps: held.request<TimelineResult<AuthoredOp[]>, { machineId: string; after: number }>('readOps'),
      readSimulations: held.request<
        TimelineResult<{ starts: SimulationStart[]; marks: SimulationMark[] }>,
        { machineId: string }
      >('readSimulations'),
      facts: fromEventObservable<TimelineFact, { machineId: string }>(() => facts.asObservable()),
      previewLayout,
    },
    ...held,
    laidOut,
    emit: (fact: TimelineFact) => facts.next(fact),
  };
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export const MACHINE = 'm-1';
export const ok = <T>(value: T): TimelineResult<T> => ({ ok: true, value });
export const refused = (message: string): TimelineResult<never> => ({
  ok: false,
  error: { code: 'network', message },
});

export const door = importXState(
  { id: 'door', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } },
  { ids: counterIds('d') },
);
export const idleId = Object.values(door.states).find((s) => s.key === 'idle')!.id;

const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 13, 0, s)).toISOString();

/** Op 1: Ada puts the door machine in; op 2: Bob renames idle to waiting. */
export const OPS: AuthoredOp[] = [
  { seq: 1, batchId: 'b1', author: 'u-ada', at: at(1), op: { type: 'machine.replace', definition: door } },
  { seq: 2, batchId: 'b2', author: 'u-bob', at: at(2), op: { type: 'state.rename', id: idleId, key: 'waiting' } },
];

export const START: SimulationStart = { id: 's-1', createdBy: 'u-ada', at: at(3), machineVersion: 2, forkedFrom: null };
export const MARK: SimulationMark = {
  simulationId: 's-1',
  seq: 1,
  sender: 'u-bob',
  kind: 'event',
  type: 'GO',
  at: at(4),
};

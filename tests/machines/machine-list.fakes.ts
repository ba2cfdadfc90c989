import { Observable, Subject } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { fakeCommentCounts } from './comment-counts.fakes.ts';
import type { NewMachine } from '../../machines/room/machine-list.machine.ts';
import { emptyMachine } from '../../src/lib/model/empty.ts';
import type { MachineListEvent, MachineSummary, Result } from '../../src/lib/ports/document.ts';
import { heldRequests } from './held-requests.ts';

/**
 * A fake machine-list port: the test pushes the list stream's events with `emit`, sees
 * the stream opened and closed, and settles the request the machine is waiting on.
 */

export type MachineListRequest = 'loadMachines' | 'createMachines' | 'renameMachine' | 'deleteMachine';

export function fakeMachineList() {
  const events = new Subject<MachineListEvent>();
  const { request, take, calls, pending } = heldRequests<MachineListRequest>();
  const streams = { opened: 0, closed: 0 };
  return {
    actors: {
      // The unread counts child has its own tests (comment-counts.test.ts): quiet here.
      commentCounts: fakeCommentCounts().logic,
      listEvents: fromEventObservable<MachineListEvent, { projectId: string }>(
        () =>
          new Observable<MachineListEvent>((subscriber) => {
            streams.opened += 1;
            const subscription = events.subscribe(subscriber);
            return () => {
              streams.closed += 1;
              subscription.unsubscribe();
            };
          }),
      ),
      loadMachines: request<Result<MachineSummary[]>, { projectId: string }>('loadMachines'),
      createMachines: request<Result<MachineSummary[]>, { projectId: string; machines: NewMachine[] }>(
        'createMachines',
      ),
      renameMachine: request<Result<MachineSummary>, { machineId: string; name: string }>('renameMachine'),
      deleteMachine: request<Result<string>, { machineId: string }>('deleteMachine'),
    },
    calls,
    streams,
    isOpen: (name: MachineListRequest) => pending.has(name),
    emit: (event: MachineListEvent) => events.next(event),
    async settle(name: MachineListRequest, output: unknown) {
      take(name).resolve(output);
      await settle();
    },
    async fail(name: MachineListRequest, error: unknown) {
      take(name).reject(error);
      await settle();
    },
  };
}

/** Lets a settled request's promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export const PROJECT = 'p-1';

/** A machine summary last edited `minute` minutes past five. */
export const summary = (id: string, minute: number, over: Partial<MachineSummary> = {}): MachineSummary => ({
  id,
  projectId: PROJECT,
  name: `Machine ${id}`,
  version: 1,
  createdBy: 'u-ada',
  createdAt: '2026-11-22T05:00:00.000Z',
  updatedAt: `2026-11-22T05:${String(minute).padStart(2, '0')}:00.000Z`,
  ...over,
});

export const newMachine = (name: string): NewMachine => ({ name, definition: emptyMachine(name) });

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const refused = (message: string): Result<never> => ({ ok: false, error: { code: 'forbidden', message } });

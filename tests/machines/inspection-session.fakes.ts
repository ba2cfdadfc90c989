import { createActor, setup, type AnyActorRef, type SnapshotFrom } from 'xstate';
import {
  inspectionSessionMachine,
  type InspectionSessionEvent,
  type InspectionSessionInput,
  type InspectionSessionReport,
} from '../../machines/inspection/inspection-session.machine.ts';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import { heldRequests } from './held-requests.ts';

/**
 * The session machine under test: run as the child of a small parent that records what it
 * reports (its look, the actor to draw), with `loadEvents` held open until the test settles it.
 */

export const SESSION_INPUT: InspectionSessionInput = { sessionId: 'ses-1', actorId: null, position: null };

export const stored = (seq: number, session = 'ses-1'): StoredInspectionEvent => ({
  seq,
  session_id: session,
  received_at: '2026-11-24T00:00:01Z',
  body:
    seq === 1
      ? { type: '@xstate.actor', sessionId: 'x:0', _version: '0.7.2', definition: '{"id":"t","initial":"a"}' }
      : { type: '@xstate.snapshot', sessionId: 'x:0', _version: '0.7.2', snapshot: { value: 'a' } },
});

export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export function runSession(input: InspectionSessionInput = SESSION_INPUT) {
  const held = heldRequests<'loadEvents'>(flush);
  const reports: InspectionSessionReport[] = [];
  const logic = inspectionSessionMachine.provide({ actors: { loadEvents: held.request('loadEvents') } });
  const parent = createActor(
    setup({ types: { events: {} as InspectionSessionReport }, actors: { session: logic } }).createMachine({
      invoke: { id: 'session', src: 'session', input },
      on: { '*': { actions: ({ event }) => reports.push(event) } },
    }),
  ).start();
  const child = parent.getSnapshot().children.session as AnyActorRef;
  return {
    ...held,
    reports,
    send: (event: InspectionSessionEvent) => child.send(event),
    getSnapshot: () => child.getSnapshot() as SnapshotFrom<typeof inspectionSessionMachine>,
    stop: () => parent.stop(),
  };
}

export const ok = <T>(value: T) => ({ ok: true as const, value });
export const seqs = (events: readonly StoredInspectionEvent[]) => events.map((e) => e.seq);

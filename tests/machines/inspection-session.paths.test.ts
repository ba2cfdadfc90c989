import type { SnapshotFrom } from 'xstate';
import {
  inspectionSessionMachine,
  type InspectionSessionEvent,
} from '../../machines/inspection/inspection-session.machine.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
import { flush, ok, runSession, seqs, SESSION_INPUT, stored } from './inspection-session.fakes.ts';

/**
 * Path tests for one picked session: every state node reached, every shortest path and every
 * edge replayed on the running machine (as a child, its reports recorded) with `loadEvents`
 * held. Vertices are the state value and what the views and the next read depend on; at most
 * three events shown keep the graph finite.
 */

type Snapshot = SnapshotFrom<typeof inspectionSessionMachine>;
type GraphEvent = InspectionSessionEvent | { type: string; output?: unknown; error?: unknown };

const done = (output: unknown): GraphEvent => ({ type: 'xstate.done.actor.loadEvents', output });
const events: GraphEvent[] = [
  done(ok([stored(1)])),
  done(ok([stored(2), stored(3)])),
  done({ ok: false, message: 'Network down' }),
  { type: 'xstate.error.actor.loadEvents', error: new Error('crashed') },
  { type: 'inspection.eventsReceived', events: [stored(2)] },
  { type: 'inspection.eventsReceived', events: [stored(4)] },
  { type: 'inspection.eventsReceived', events: [stored(3, 'ses-2')] },
  { type: 'inspection.eventsStored', sessionId: 'ses-1', lastSeq: 3 },
  { type: 'inspection.eventsStored', sessionId: 'ses-2', lastSeq: 3 },
  { type: 'inspection.feedJoined' },
  { type: 'inspection.selectActor', actorId: 'x:0' },
  { type: 'inspection.scrub', position: 1 },
  { type: 'inspection.followLive' },
  { type: 'session.lookFollowed', actorId: 'x:0', position: 0 },
  { type: 'inspection.dismissError' },
];

function key(snapshot: Snapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    events: seqs(c.events),
    held: seqs(c.held),
    heard: c.heard,
    again: c.readAgain,
    actorId: c.actorId,
    position: c.position,
    drawn: c.drawn,
    error: c.error,
  });
}

async function replay(steps: readonly GraphEvent[]) {
  const run = runSession();
  for (const event of steps) {
    if (await settleRequest(run, event)) continue;
    run.send(event as InspectionSessionEvent);
    await flush();
  }
  return run;
}

// The graph is walked without a parent: what the machine tells it is left out there (the replay runs it as a child).
const walked = inspectionSessionMachine.provide({ actions: { tellParent: () => {} } });

describeMachinePaths('inspection session machine', {
  machine: walked,
  traversal: {
    events: events as InspectionSessionEvent[],
    input: SESSION_INPUT,
    filterEvents: (snapshot: Snapshot, event: InspectionSessionEvent) => {
      if (!snapshot.can(event)) return false;
      const c = snapshot.context;
      const type = event.type as string;
      const shown = c.events.length + c.held.length;
      if (type.startsWith('xstate.')) {
        const failed = type.startsWith('xstate.error') || (event as { output?: { ok: boolean } }).output?.ok === false;
        return failed ? c.events.length === 0 && c.error === null : shown < 4;
      }
      switch (type) {
        case 'inspection.eventsReceived':
          return shown < 3 && c.error === null && c.actorId === null;
        case 'inspection.eventsStored':
        case 'inspection.feedJoined':
          return c.events.length > 0 && shown < 3 && !c.readAgain && c.actorId === null;
        case 'inspection.selectActor':
        case 'session.lookFollowed':
          return c.actorId === null && c.events.length > 0 && c.error === null;
        case 'inspection.scrub':
          return c.position === null && c.actorId !== null;
        case 'inspection.dismissError':
          return c.error !== null;
        default:
          return true;
      }
    },
    serializeState: key,
    serializeEvent: (event: InspectionSessionEvent) => JSON.stringify(event),
  },
  replay,
  observe: key,
  minEdges: 50,
  timeout: 120_000,
});

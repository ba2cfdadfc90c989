import { Subject } from 'rxjs';
import { createActor, fromCallback, fromEventObservable, type SnapshotFrom } from 'xstate';
import { inspectionFollowMachine } from '../../machines/inspection/inspection-follow.machine.ts';
import { inspectionSessionMachine } from '../../machines/inspection/inspection-session.machine.ts';
import {
  inspectionMachine,
  type InspectionInput,
  type InspectionMachineEvent,
} from '../../machines/inspection/inspection.machine.ts';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import type { InspectionFeedEvent, InspectionSession, InspectionSource } from '../../src/lib/ports/inspection.ts';
import { heldRequests } from './held-requests.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';

/**
 * Path tests for the inspection machine, the parent: every state node reached, every shortest
 * path and every edge replayed on the running machine with a fake port (feed events emitted,
 * requests settled) and its children running (the session machine's read held open). Its
 * edges are the session list, the picked session and what this person looks at; the
 * children's own graphs are in inspection-{session,sources,diagram}.paths.test.ts. The
 * session machine's reports (`inspection.lookChanged`, `.drawActor`) are sent as it would.
 */

type Snapshot = SnapshotFrom<typeof inspectionMachine>;
type Event = InspectionMachineEvent;
type GraphEvent = Event | { type: string; output?: unknown; error?: unknown };

const INPUT: InspectionInput = { projectId: 'p-1', isOwner: true };
const source: InspectionSource = {
  id: 's-1',
  name: 'web',
  maxEvents: 100,
  maxDays: 7,
  createdAt: '2026-11-24T00:00:00Z',
  revokedAt: null,
};
const session = (id: string): InspectionSession => ({
  id,
  sourceId: 's-1',
  startedAt: '2026-11-24T00:00:00Z',
  lastEventAt: '2026-11-24T00:00:00Z',
  endedAt: null,
  eventCount: 0,
});
const stored = (seq: number, sessionId = 'ses-1'): StoredInspectionEvent => ({
  seq,
  session_id: sessionId,
  received_at: '2026-11-24T00:00:01Z',
  body: { type: '@xstate.snapshot', sessionId: 'x:0', _version: '0.7.2', snapshot: { value: 'a' } },
});
const look = (sessionId: string | null, actorId: string | null, position: number | null) => ({
  type: 'inspection.lookFollowed' as const,
  look: { sessionId, actorId, position },
});

const events: GraphEvent[] = [
  { type: 'xstate.done.actor.load', output: { ok: true, value: { sources: [source], sessions: [session('ses-1')] } } },
  { type: 'xstate.done.actor.load', output: { ok: true, value: { sources: [source], sessions: [] } } },
  { type: 'xstate.done.actor.load', output: { ok: false, message: 'Network down' } },
  { type: 'xstate.error.actor.load', error: new Error('load crashed') },
  { type: 'inspection.retry' },
  { type: 'inspection.sessionOpened', session: session('ses-2') },
  { type: 'inspection.sessionEnded', session: { ...session('ses-1'), endedAt: '2026-11-24T00:05:00Z' } },
  { type: 'inspection.eventsReceived', events: [stored(1)] },
  {
    type: 'inspection.eventsReceived',
    events: [stored(2, 'ses-2')],
    sessionCount: { sessionId: 'ses-2', eventCount: 2 },
  },
  { type: 'inspection.eventsStored', sessionId: 'ses-1', lastSeq: 3, eventCount: 3 },
  { type: 'inspection.selectSession', sessionId: 'ses-1' },
  { type: 'inspection.selectSession', sessionId: 'ses-2' },
  { type: 'inspection.lookChanged', actorId: 'x:0', position: 1 },
  look('ses-2', 'x:0', null),
  look('ses-1', null, 0),
  { type: 'inspection.feedLost', message: 'gone' },
  { type: 'inspection.feedJoined' },
];

function key(snapshot: Snapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    sessions: c.sessions.map((s) => `${s.id}:${s.eventCount}:${s.endedAt ? 'e' : 'l'}`),
    sessionId: c.sessionId,
    actorId: c.actorId,
    position: c.position,
    error: c.error,
    feedDown: c.feedDown,
  });
}

const isFeed = (type: string) =>
  [
    'eventsReceived',
    'eventsStored',
    'sessionOpened',
    'sessionEnded',
    'sourceRevoked',
    'sourceUpdated',
    'feedJoined',
    'feedLost',
  ].includes(type.slice('inspection.'.length));

const traversal = {
  events: events as Event[],
  filterEvents: (snapshot: Snapshot, event: Event) => {
    if (!snapshot.can(event)) return false;
    const c = snapshot.context;
    const type = event.type as string;
    const ended = c.sessions.some((s) => s.endedAt !== null);
    switch (type) {
      case 'inspection.sessionOpened':
        return c.sessions.length === 1 && c.sessionId === null;
      case 'inspection.sessionEnded':
        return c.sessions.length === 1 && !ended && c.sessionId === null;
      case 'inspection.eventsReceived':
        return c.sessions.every((s) => s.eventCount === 0) && c.actorId === null;
      case 'inspection.eventsStored':
        return c.sessions.every((s) => s.eventCount === 0) && c.sessionId !== null;
      case 'inspection.selectSession':
        return c.actorId === null && c.position === null && !c.feedDown;
      case 'inspection.lookChanged':
        return c.sessionId !== null && c.actorId === null && !c.feedDown;
      case 'inspection.lookFollowed':
        return c.sessionId !== null && c.position === null && !c.feedDown;
      case 'inspection.feedLost':
        return !c.feedDown && c.actorId === null && c.sessions.every((s) => s.eventCount === 0);
      default:
        return true;
    }
  },
  serializeState: key,
  serializeEvent: (event: Event) => JSON.stringify(event),
  input: INPUT,
};

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

async function replay(steps: readonly GraphEvent[]) {
  const feed = new Subject<InspectionFeedEvent>();
  const held = heldRequests<'load' | 'loadEvents'>(flush);
  const logic = inspectionMachine.provide({
    actors: {
      load: held.request('load'),
      feed: fromEventObservable<InspectionFeedEvent, { projectId: string }>(() => feed.asObservable()),
      session: inspectionSessionMachine.provide({ actors: { loadEvents: held.request('loadEvents') as never } }),
      // Follow mode's channel stays silent here (its own test drives it).
      follow: inspectionFollowMachine.provide({ actors: { channel: fromCallback(() => undefined) } }),
    } as never,
  });
  const actor = createActor(logic, { input: INPUT }).start();
  for (const event of steps) {
    if (await settleRequest(held, event)) continue;
    if (event.type.startsWith('inspection.') && isFeed(event.type)) feed.next(event as InspectionFeedEvent);
    else actor.send(event as Event);
    await flush();
  }
  return actor;
}

describeMachinePaths('inspection machine', {
  machine: inspectionMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 200,
  timeout: 120_000,
});

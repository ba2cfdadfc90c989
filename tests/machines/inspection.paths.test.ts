import { Subject } from 'rxjs';
import { createActor, fromEventObservable, type SnapshotFrom } from 'xstate';
import {
  inspectionMachine,
  type InspectionInput,
  type InspectionMachineEvent,
} from '../../machines/inspection.machine.ts';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import type { InspectionFeedEvent, InspectionSession, InspectionSource } from '../../src/lib/ports/inspection.ts';
import { heldRequests } from './held-requests.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';

/**
 * Path tests for the inspection machine: every state node reached, every shortest path
 * and every edge replayed on the running machine with a fake port (feed events emitted,
 * requests settled). Vertices are the state value plus what the views read; one source,
 * one session and at most two events keep the graph finite.
 */

type Snapshot = SnapshotFrom<typeof inspectionMachine>;
type Event = InspectionMachineEvent;
type GraphEvent = Event | { type: string; output?: unknown; error?: unknown };
type Request =
  'load' | 'createSource' | 'revokeSource' | 'setRetention' | 'loadEvents' | 'layoutDiagram' | 'saveMachine';

const INPUT: InspectionInput = { projectId: 'p-1', isOwner: true };
const source: InspectionSource = {
  id: 's-1',
  name: 'web',
  maxEvents: 100,
  maxDays: 7,
  createdAt: '2026-11-24T00:00:00Z',
  revokedAt: null,
};
const session: InspectionSession = {
  id: 'ses-1',
  sourceId: 's-1',
  startedAt: '2026-11-24T00:00:00Z',
  lastEventAt: '2026-11-24T00:00:00Z',
  endedAt: null,
  eventCount: 0,
};
const stored = (seq: number): StoredInspectionEvent => ({
  seq,
  session_id: 'ses-1',
  received_at: '2026-11-24T00:00:01Z',
  body:
    seq === 1
      ? { type: '@xstate.actor', sessionId: 'x:0', _version: '0.7.2', definition: '{"id":"t","initial":"a"}' }
      : { type: '@xstate.snapshot', sessionId: 'x:0', _version: '0.7.2', snapshot: { value: 'a' } },
});
const ok = <T>(value: T) => ({ ok: true as const, value });
const refused = (message: string) => ({ ok: false as const, message });
const done = (request: Request, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${request}`, output });
const crashed = (request: Request): GraphEvent => ({
  type: `xstate.error.actor.${request}`,
  error: new Error(`${request} crashed`),
});

const events: GraphEvent[] = [
  done('load', ok({ sources: [source], sessions: [] })),
  done('load', refused('Network down')),
  crashed('load'),
  { type: 'inspection.retry' },
  { type: 'inspection.createSource', name: 'web 2' },
  { type: 'inspection.createSource', name: '  ' },
  done('createSource', ok({ source: { ...source, id: 's-2', name: 'web 2' }, key: 'cri_k' })),
  done('createSource', refused('Project not found')),
  crashed('createSource'),
  { type: 'inspection.dismissKey' },
  { type: 'inspection.revokeSource', sourceId: 's-1' },
  done('revokeSource', ok({ sourceId: 's-1', revokedAt: '2026-11-24T01:00:00Z' })),
  crashed('revokeSource'),
  { type: 'inspection.sourceRevoked', sourceId: 's-1', revokedAt: '2026-11-24T01:00:00Z' },
  { type: 'inspection.setRetention', sourceId: 's-1', maxEvents: 500, maxDays: 3 },
  done('setRetention', ok({ sourceId: 's-1', maxEvents: 500, maxDays: 3 })),
  done('setRetention', refused('only owners and editors may')),
  crashed('setRetention'),
  { type: 'inspection.sourceUpdated', sourceId: 's-1', maxEvents: 200, maxDays: 2 },
  { type: 'inspection.sessionOpened', session },
  { type: 'inspection.selectSession', sessionId: 'ses-1' },
  done('loadEvents', ok([stored(1)])),
  done('loadEvents', refused('Network down')),
  crashed('loadEvents'),
  { type: 'inspection.eventsReceived', events: [stored(1)] },
  { type: 'inspection.eventsReceived', events: [stored(2)] },
  { type: 'inspection.eventsStored', sessionId: 'ses-1', lastSeq: 2 },
  { type: 'inspection.selectActor', actorId: 'x:0' },
  done('layoutDiagram', null),
  crashed('layoutDiagram'),
  { type: 'inspection.scrub', position: 0 },
  { type: 'inspection.followLive' },
  { type: 'inspection.saveMachine', name: 'Saved', config: { id: 't' } },
  done('saveMachine', ok('m-1')),
  done('saveMachine', refused('Viewers cannot create machines.')),
  crashed('saveMachine'),
  { type: 'inspection.dismissError' },
  { type: 'inspection.feedLost', message: 'gone' },
  { type: 'inspection.feedJoined' },
];

function key(snapshot: Snapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    sources: c.sources.map((s) => `${s.id}:${s.revokedAt ? 'r' : 'l'}`),
    sessions: c.sessions.map((s) => s.id),
    sessionId: c.sessionId,
    events: c.events.map((e) => e.seq),
    actorId: c.actorId,
    position: c.position,
    key: c.createdKey?.key ?? null,
    saved: c.savedMachineId,
    error: c.error,
    feedDown: c.feedDown,
  });
}

const isFeed = (type: string) =>
  type.startsWith('inspection.') &&
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
    const quiet = c.error === null && c.createdKey === null && c.savedMachineId === null && !c.feedDown;
    const failed =
      type.startsWith('xstate.error.actor.') || (event as { output?: { ok?: boolean } }).output?.ok === false;
    // A session picked by live events (none listed): only its read-back is followed, the
    // rest of that graph is the one behind inspection.selectSession.
    if (c.sessionId !== null && c.sessions.length === 0)
      return type === 'xstate.done.actor.loadEvents' && !failed && c.events.every((e) => e.seq !== 1);
    // Settling a request: errors only from before any session is picked (or while loading).
    if (type.startsWith('xstate.')) return !failed || c.sessionId === null || snapshot.matches('loading');
    switch (type) {
      case 'inspection.createSource':
        return quiet && c.sessionId === null && c.sources.length === 1;
      case 'inspection.revokeSource':
      case 'inspection.sourceRevoked':
        return quiet && c.sessionId === null && c.sources.every((s) => !s.revokedAt);
      case 'inspection.saveMachine':
        return quiet && (c.sessionId === null || (c.actorId !== null && c.position === null));
      case 'inspection.sessionOpened':
        return quiet && c.sessions.length === 0 && c.sessionId === null;
      case 'inspection.selectSession':
        return quiet && c.sessionId === null;
      case 'inspection.eventsReceived':
        // With no session picked, live events pick theirs: only from a fresh page (no session listed).
        return (
          quiet &&
          c.events.length < 2 &&
          c.position === null &&
          c.actorId === null &&
          (c.sessionId !== null || (c.sessions.length === 0 && c.sources.length === 1 && !c.sources[0]!.revokedAt))
        );
      case 'inspection.eventsStored':
        return quiet && c.events.length === 1 && c.position === null;
      case 'inspection.selectActor':
        return quiet && c.actorId === null && c.events.length > 0 && c.position === null;
      case 'inspection.scrub':
        return quiet && c.position === null && c.events.length > 0 && c.actorId === null;
      case 'inspection.followLive':
        return c.position !== null;
      case 'inspection.feedLost':
        return quiet && c.sessionId === null;
      case 'inspection.feedJoined':
        return c.feedDown || (quiet && c.events.length === 1 && c.position === null && c.actorId === null);
      case 'inspection.dismissKey':
        return c.createdKey !== null;
      case 'inspection.dismissError':
        return c.error !== null;
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

function fakeInspection() {
  const feed = new Subject<InspectionFeedEvent>();
  const held = heldRequests<Request>(flush);
  return {
    ...held,
    emit: (event: InspectionFeedEvent) => feed.next(event),
    actors: {
      load: held.request('load'),
      feed: fromEventObservable<InspectionFeedEvent, { projectId: string }>(() => feed.asObservable()),
      createSource: held.request('createSource'),
      revokeSource: held.request('revokeSource'),
      setRetention: held.request('setRetention'),
      loadEvents: held.request('loadEvents'),
      layoutDiagram: held.request('layoutDiagram'),
      saveMachine: held.request('saveMachine'),
    },
  };
}

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeInspection();
  const logic = inspectionMachine.provide({ actors: fake.actors as never });
  const actor = createActor(logic, { input: INPUT }).start();
  for (const event of steps) {
    if (await settleRequest(fake, event)) continue;
    if (isFeed(event.type)) fake.emit(event as InspectionFeedEvent);
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
  minEdges: 1000,
  timeout: 120_000,
});

import { assertEvent, assign, enqueueActions, sendTo, setup } from 'xstate';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import type { InspectionLook } from '../../src/lib/ports/inspection-follow.ts';
import type {
  InspectionFeedEvent,
  InspectionResult,
  InspectionSession,
  InspectionSource,
} from '../../src/lib/ports/inspection.ts';
import { inspectionDiagramMachine } from './inspection-diagram.machine.ts';
import { inspectionFollowMachine, type FollowedLook, type FollowIntent } from './inspection-follow.machine.ts';
import { inspectionSessionMachine, type InspectionSessionReport } from './inspection-session.machine.ts';
import { inspectionSourcesMachine } from './inspection-sources.machine.ts';
import { output, request, requestNotProvided, streamNotProvided } from '../shared.ts';

/**
 * Live inspection in a project: loads the sources and sessions, keeps the session
 * list live from the feed, and routes between its children (ids `sources`, `session`,
 * `diagram`, `follow`; see machines/CONTEXT.md). It holds what this person looks at (the
 * picked session, and the actor and position the session machine reports) for follow mode.
 * Its actors are provided in src/app/inspection.ts.
 */

export interface InspectionInput {
  projectId: string;
  isOwner: boolean;
  /** Owners and editors: may change a source's retention. */
  canEdit?: boolean;
  /** Who is looking (follow mode); without it nobody presents or follows. */
  userId?: string;
}

export interface InspectionContext extends InspectionInput, InspectionLook {
  /** The sources as loaded; the `sources` child keeps them from then on. */
  loadedSources: InspectionSource[];
  sessions: InspectionSession[];
  /** Why loading failed. */
  error: string | null;
  feedDown: boolean;
}

export type InspectionIntent =
  | { type: 'inspection.retry' }
  | { type: 'inspection.createSource'; name: string }
  | { type: 'inspection.revokeSource'; sourceId: string }
  | { type: 'inspection.setRetention'; sourceId: string; maxEvents: number; maxDays: number }
  | { type: 'inspection.dismissKey' }
  | { type: 'inspection.selectSession'; sessionId: string }
  | { type: 'inspection.selectActor'; actorId: string }
  | { type: 'inspection.scrub'; position: number }
  | { type: 'inspection.followLive' }
  | { type: 'inspection.saveMachine'; name: string; config: Record<string, unknown> }
  | { type: 'inspection.dismissError' }
  /** Follow mode (inspection-follow.machine.ts): present what one looks at, follow a presenter. */
  | { type: 'inspection.present' }
  | { type: 'inspection.stopPresenting' }
  | { type: 'inspection.follow'; userId: string }
  | { type: 'inspection.unfollow' };

/** Every event the machine takes: intents, feed facts, follow mode's looks and the session machine's reports. */
export type InspectionMachineEvent = InspectionIntent | InspectionFeedEvent | FollowedLook | InspectionSessionReport;

/** What the page branches on. */
export type InspectionTag = 'loading' | 'failed' | 'ready';

type Loaded = { sources: InspectionSource[]; sessions: InspectionSession[] };

/** What this person looks at, as follow mode shares it. */
export const lookOf = (c: InspectionContext): InspectionLook => ({
  sessionId: c.sessionId,
  actorId: c.actorId,
  position: c.position,
});

/** Whether a live batch concerns the picked session: its own, or another of the same source (its seqs count too). */
function concernsPicked(c: InspectionContext, batch: readonly StoredInspectionEvent[]): boolean {
  const of = batch[0]?.session_id;
  if (of === undefined || c.sessionId === null) return false;
  if (of === c.sessionId) return true;
  const source = (id: string) => c.sessions.find((s) => s.id === id)?.sourceId;
  const picked = source(c.sessionId);
  return picked !== undefined && source(of) === picked;
}

/**
 * The session list after a live batch: counts (the database's when the batch carries it)
 * and last event times. A session the list does not hold yet
 * (its `session_opened` broadcast came before this page joined the channel, or was lost)
 * is added from its events, so the list never says "No sessions yet" while events flow;
 * a later `session_opened` or a reload replaces it with the stored row.
 */
export function countLive(
  sessions: InspectionSession[],
  events: readonly StoredInspectionEvent[],
  count?: { sessionId: string; eventCount: number },
): InspectionSession[] {
  const counted = sessions.map((s) => {
    const mine = events.filter((e) => e.session_id === s.id);
    if (mine.length === 0) return s;
    const eventCount = count?.sessionId === s.id ? count.eventCount : s.eventCount + mine.length;
    return { ...s, eventCount, lastEventAt: mine[0]!.received_at };
  });
  const known = new Set(sessions.map((s) => s.id));
  const added: InspectionSession[] = [];
  for (const e of events) {
    if (known.has(e.session_id)) continue;
    known.add(e.session_id);
    const mine = events.filter((x) => x.session_id === e.session_id);
    const times = mine.map((x) => x.received_at).sort();
    added.push({
      id: e.session_id,
      sourceId: '',
      startedAt: times[0]!,
      lastEventAt: times[times.length - 1]!,
      endedAt: null,
      eventCount: count?.sessionId === e.session_id ? count.eventCount : mine.length,
    });
  }
  return [...added, ...counted];
}

const inspectionSetup = setup({
  types: {
    context: {} as InspectionContext,
    input: {} as InspectionInput,
    events: {} as InspectionMachineEvent,
    tags: {} as InspectionTag,
  },
  actors: {
    follow: inspectionFollowMachine,
    sources: inspectionSourcesMachine,
    session: inspectionSessionMachine,
    diagram: inspectionDiagramMachine,
    load: requestNotProvided<InspectionResult<Loaded>, { projectId: string }>('inspection', 'load'),
    feed: streamNotProvided<InspectionFeedEvent, { projectId: string }>('inspection', 'feed'),
  },
  guards: {
    refused: (_, result: InspectionResult<unknown>) => !result.ok,
    /** Live events pick their session when none is picked yet. */
    picksSession: ({ context, event }) =>
      context.sessionId === null && event.type === 'inspection.eventsReceived' && event.events.length > 0,
    canPresent: ({ context }) => context.userId !== undefined,
    otherSession: ({ context, event }) => {
      const { look } = event as FollowedLook;
      return look.sessionId !== null && look.sessionId !== context.sessionId;
    },
  },
  actions: {
    /** Tells follow mode what this person looks at now (`chosen`: by their own choice). */
    tellLook: sendTo('follow', ({ context }, params: { chosen: boolean }): FollowIntent => ({
      type: 'follow.lookChanged',
      look: lookOf(context),
      chosen: params.chosen,
    })),
    toSession: enqueueActions(({ context, event, enqueue }) => {
      if (context.sessionId !== null) enqueue.sendTo('session', event);
    }),
    toSources: sendTo('sources', ({ event }) => event as never),
    toDiagram: sendTo('diagram', ({ event }) => event as never),
    countLive: assign(({ context, event }) => {
      const { events, sessionCount } = event as Extract<InspectionFeedEvent, { type: 'inspection.eventsReceived' }>;
      return { sessions: countLive(context.sessions, events, sessionCount) };
    }),
    pickSession: enqueueActions(({ event, enqueue }) => {
      const { sessionId } = event as Extract<InspectionIntent, { type: 'inspection.selectSession' }>;
      enqueue.assign({ sessionId, actorId: null, position: null });
      enqueue.sendTo('diagram', { type: 'diagram.clear' });
      enqueue.sendTo('follow', ({ context }: { context: InspectionContext }) => ({
        type: 'follow.lookChanged' as const,
        look: lookOf(context),
        chosen: true,
      }));
    }),
    /** A followed presenter's look in another session: theirs from its start. */
    takeFollowedSession: enqueueActions(({ event, enqueue }) => {
      const { look } = event as FollowedLook;
      enqueue.assign({ sessionId: look.sessionId, actorId: look.actorId, position: look.position });
      enqueue.sendTo('diagram', { type: 'diagram.clear' });
    }),
    addSession: assign(({ context }, params: { session: InspectionSession }) => ({
      sessions: [params.session, ...context.sessions.filter((s) => s.id !== params.session.id)],
    })),
    showLoaded: assign((_, result: InspectionResult<Loaded>) =>
      result.ok ? { loadedSources: result.value.sources, sessions: result.value.sessions, error: null } : {},
    ),
    showRefusal: assign((_, result: InspectionResult<unknown>) => (result.ok ? {} : { error: result.message })),
    showLoadFailure: assign({ error: 'Inspection could not be loaded.' }),
    pickLiveSession: assign(({ event }) => {
      assertEvent(event, 'inspection.eventsReceived');
      return { sessionId: event.events[0]!.session_id };
    }),
    /** A live batch of the picked session's source goes to the session machine. */
    toSessionIfPicked: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'inspection.eventsReceived');
      if (concernsPicked(context, event.events))
        enqueue.sendTo('session', { type: 'inspection.eventsReceived', events: event.events });
    }),
    /** A batch too big for one message: the database's count for the list. */
    countStored: assign(({ context, event }) => {
      assertEvent(event, 'inspection.eventsStored');
      const { eventCount } = event;
      if (eventCount === undefined) return {};
      return { sessions: context.sessions.map((s) => (s.id === event.sessionId ? { ...s, eventCount } : s)) };
    }),
    feedUp: assign({ feedDown: false }),
    feedDown: assign({ feedDown: true }),
    clearError: assign({ error: null }),
    rememberLook: assign(({ event }) => {
      assertEvent(event, 'inspection.lookChanged');
      return { actorId: event.actorId, position: event.position };
    }),
    drawActor: sendTo('diagram', ({ event }) => {
      assertEvent(event, 'inspection.drawActor');
      return { type: 'diagram.show' as const, actorId: event.actorId, config: event.config };
    }),
    /** A followed presenter's actor and position in the session shown here. */
    takeFollowedLook: enqueueActions(({ context, event, enqueue }) => {
      const { look } = event as FollowedLook;
      const actorId = look.actorId ?? context.actorId;
      enqueue.assign({ actorId, position: look.position });
      if (context.sessionId !== null)
        enqueue.sendTo('session', { type: 'session.lookFollowed', actorId, position: look.position });
    }),
    present: sendTo('follow', ({ context }): FollowIntent => ({ type: 'follow.present', look: lookOf(context) })),
    stopPresenting: sendTo('follow', { type: 'follow.stopPresenting' } satisfies FollowIntent),
    follow: sendTo('follow', ({ event }): FollowIntent => {
      assertEvent(event, 'inspection.follow');
      return { type: 'follow.follow', userId: event.userId };
    }),
    unfollow: sendTo('follow', { type: 'follow.unfollow' } satisfies FollowIntent),
  },
});

export const inspectionMachine = inspectionSetup.createMachine({
  id: 'inspection',
  context: ({ input }) => ({
    ...input,
    canEdit: input.canEdit ?? input.isOwner,
    loadedSources: [],
    sessions: [],
    sessionId: null,
    actorId: null,
    position: null,
    error: null,
    feedDown: false,
  }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'load',
        src: 'load',
        input: ({ context }) => ({ projectId: context.projectId }),
        ...request({
          refused: { target: 'failed', actions: { type: 'showRefusal', params: output } },
          done: { target: 'ready', actions: { type: 'showLoaded', params: output } },
          threw: { target: 'failed', actions: 'showLoadFailure' },
        }),
      },
    },
    failed: { tags: ['failed'], on: { 'inspection.retry': 'loading' } },
    ready: {
      tags: ['ready'],
      invoke: [
        { id: 'feed', src: 'feed', input: ({ context }) => ({ projectId: context.projectId }) },
        {
          id: 'follow',
          src: 'follow',
          input: ({ context }) => ({ projectId: context.projectId, userId: context.userId ?? '' }),
        },
        {
          id: 'sources',
          src: 'sources',
          input: ({ context }) => ({
            projectId: context.projectId,
            isOwner: context.isOwner,
            canEdit: context.canEdit === true,
            sources: context.loadedSources,
          }),
        },
        { id: 'diagram', src: 'diagram', input: ({ context }) => ({ projectId: context.projectId }) },
      ],
      initial: 'idle',
      on: {
        'inspection.eventsReceived': [
          {
            // Live events pick their session when none is picked yet; it is read from its start.
            guard: 'picksSession',
            target: '.watching',
            actions: ['countLive', 'pickLiveSession', { type: 'tellLook', params: { chosen: false } }],
          },
          { actions: ['countLive', 'toSessionIfPicked'] },
        ],
        // A batch too big for one message: the database's count for the list, the rows read back.
        'inspection.eventsStored': { actions: ['countStored', 'toSession'] },
        'inspection.sessionOpened': {
          actions: { type: 'addSession', params: ({ event }) => ({ session: event.session }) },
        },
        'inspection.sessionEnded': {
          actions: { type: 'addSession', params: ({ event }) => ({ session: event.session }) },
        },
        'inspection.sourceUpdated': { actions: 'toSources' },
        'inspection.sourceRevoked': { actions: 'toSources' },
        'inspection.createSource': { actions: 'toSources' },
        'inspection.revokeSource': { actions: 'toSources' },
        'inspection.setRetention': { actions: 'toSources' },
        'inspection.dismissKey': { actions: 'toSources' },
        'inspection.saveMachine': { actions: 'toDiagram' },
        'inspection.feedJoined': { actions: ['feedUp', 'toSession'] },
        'inspection.feedLost': { actions: 'feedDown' },
        'inspection.dismissError': { actions: ['clearError', 'toSources', 'toDiagram', 'toSession'] },
        'inspection.selectSession': { target: '.watching', actions: 'pickSession' },
        'inspection.selectActor': { actions: 'toSession' },
        'inspection.scrub': { actions: 'toSession' },
        'inspection.followLive': { actions: 'toSession' },
        // The session machine's reports: the look changed by this person's choice; an actor to draw.
        'inspection.lookChanged': {
          actions: ['rememberLook', { type: 'tellLook', params: { chosen: true } }],
        },
        'inspection.drawActor': { actions: 'drawActor' },
        // Following a presenter: their session (read from its start), or their actor and position in it.
        'inspection.lookFollowed': [
          { guard: 'otherSession', target: '.watching', actions: 'takeFollowedSession' },
          { actions: 'takeFollowedLook' },
        ],
        'inspection.present': { guard: 'canPresent', actions: 'present' },
        'inspection.stopPresenting': { actions: 'stopPresenting' },
        'inspection.follow': { actions: 'follow' },
        'inspection.unfollow': { actions: 'unfollow' },
      },
      states: {
        idle: {},
        watching: {
          // Another session: re-entered, so a fresh session machine reads it from its start.
          on: {
            'inspection.selectSession': { target: 'watching', reenter: true, actions: 'pickSession' },
            'inspection.lookFollowed': {
              guard: 'otherSession',
              target: 'watching',
              reenter: true,
              actions: 'takeFollowedSession',
            },
          },
          invoke: {
            id: 'session',
            src: 'session',
            input: ({ context }) => ({
              sessionId: context.sessionId ?? '',
              actorId: context.actorId,
              position: context.position,
            }),
          },
        },
      },
    },
  },
});

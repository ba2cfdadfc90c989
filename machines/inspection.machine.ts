import { assign, fromEventObservable, fromPromise, raise, sendTo, setup } from 'xstate';
import { EMPTY } from 'rxjs';
import type { StoredInspectionEvent } from '../src/lib/inspection/protocol.ts';
import type { Layout } from '../src/lib/layout/types.ts';
import type { InspectionLook } from '../src/lib/ports/inspection-follow.ts';
import type { MachineDefinition } from '../src/lib/model/types.ts';
import type {
  InspectionFeedEvent,
  InspectionResult,
  InspectionSession,
  InspectionSource,
} from '../src/lib/ports/inspection.ts';
import { inspectionFollowMachine, type FollowedLook, type FollowIntent } from './inspection-follow.machine.ts';

/**
 * Live inspection in a project (issue 13): the sources and their one-time keys (owners),
 * the live sessions, the picked session's events (followed live, or replayed up to a
 * position), the picked actor and its diagram's layout, and saving the inspected
 * definition as a new machine. Its actors are provided in src/app/inspection.ts.
 */

export interface InspectionInput {
  projectId: string;
  isOwner: boolean;
  /** Owners and editors: may change a source's retention. */
  canEdit?: boolean;
  /** Who is looking (follow mode); without it nobody presents or follows. */
  userId?: string;
}

export interface InspectionContext extends InspectionInput {
  sources: InspectionSource[];
  sessions: InspectionSession[];
  sessionId: string | null;
  events: StoredInspectionEvent[];
  actorId: string | null;
  /** How many of the session's events are shown; null: all of them, following live. */
  position: number | null;
  /** The key of the source just created: shown once, until dismissed. */
  createdKey: { sourceId: string; key: string } | null;
  /** The picked actor's machine in the project's model, laid out for the diagram. */
  layout: { actorId: string; definition: MachineDefinition; layout: Layout } | null;
  savedMachineId: string | null;
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

/** Raised when a session's events are read, so a picked actor's diagram is drawn from them. */
type InspectionInternal = { type: 'inspection.eventsRead' };

/** Every event the machine takes: intents, feed facts, follow mode's looks and its own. */
export type InspectionMachineEvent = InspectionIntent | InspectionFeedEvent | FollowedLook | InspectionInternal;

type Loaded = { sources: InspectionSource[]; sessions: InspectionSession[] };

const lastSeq = (events: readonly StoredInspectionEvent[]) => events[events.length - 1]?.seq ?? 0;

/** What this person looks at, as follow mode shares it. */
export const lookOf = (c: InspectionContext): InspectionLook => ({
  sessionId: c.sessionId,
  actorId: c.actorId,
  position: c.position,
});

export const inspectionMachine = setup({
  types: {
    context: {} as InspectionContext,
    input: {} as InspectionInput,
    events: {} as InspectionMachineEvent,
  },
  actors: {
    follow: inspectionFollowMachine,
    load: fromPromise<InspectionResult<Loaded>, { projectId: string }>(() => Promise.reject(new Error('not provided'))),
    feed: fromEventObservable<InspectionFeedEvent, { projectId: string }>(() => EMPTY),
    createSource: fromPromise<
      InspectionResult<{ source: InspectionSource; key: string }>,
      { projectId: string; name: string }
    >(() => Promise.reject(new Error('not provided'))),
    revokeSource: fromPromise<InspectionResult<{ sourceId: string; revokedAt: string }>, { sourceId: string }>(() =>
      Promise.reject(new Error('not provided')),
    ),
    setRetention: fromPromise<
      InspectionResult<{ sourceId: string; maxEvents: number; maxDays: number }>,
      { sourceId: string; maxEvents: number; maxDays: number }
    >(() => Promise.reject(new Error('not provided'))),
    loadEvents: fromPromise<InspectionResult<StoredInspectionEvent[]>, { sessionId: string; afterSeq: number }>(() =>
      Promise.reject(new Error('not provided')),
    ),
    layoutDiagram: fromPromise<
      { definition: MachineDefinition; layout: Layout } | null,
      { config: Record<string, unknown> }
    >(() => Promise.reject(new Error('not provided'))),
    saveMachine: fromPromise<
      InspectionResult<string>,
      { projectId: string; name: string; config: Record<string, unknown> }
    >(() => Promise.reject(new Error('not provided'))),
  },
  guards: {
    isOwner: ({ context }) => context.isOwner,
    canEdit: ({ context }) => context.canEdit === true,
    hasName: (_, params: { name: string }) => params.name.trim().length > 0,
  },
  actions: {
    /** Tells follow mode what this person looks at now (`chosen`: by their own choice). */
    tellLook: sendTo('follow', ({ context }, params: { chosen: boolean }): FollowIntent => ({
      type: 'follow.lookChanged',
      look: lookOf(context),
      chosen: params.chosen,
    })),
    appendLive: assign(
      (
        { context },
        params: { events: StoredInspectionEvent[]; sessionCount?: { sessionId: string; eventCount: number } },
      ) => {
        // The count is the database's when the batch carries it (counting what arrived
        // missed batches that came before the session was listed).
        const sessions = context.sessions.map((s) => {
          const mine = params.events.filter((e) => e.session_id === s.id);
          if (mine.length === 0) return s;
          const eventCount =
            params.sessionCount?.sessionId === s.id ? params.sessionCount.eventCount : s.eventCount + mine.length;
          return { ...s, eventCount, lastEventAt: mine[0]!.received_at };
        });
        // The first live events pick their session when none is picked yet; the session
        // region then reads the whole session back (what was stored before the page opened).
        if (context.sessionId === null)
          return { sessions, sessionId: params.events[0]?.session_id ?? null, events: [] };
        const sessionId = context.sessionId;
        const after = lastSeq(context.events);
        const fresh = params.events.filter((e) => e.session_id === sessionId && e.seq > after);
        return { sessions, sessionId, events: fresh.length > 0 ? [...context.events, ...fresh] : context.events };
      },
    ),
    setSessionCount: assign(({ context }, params: { sessionId: string; eventCount?: number }) =>
      params.eventCount === undefined
        ? {}
        : {
            sessions: context.sessions.map((s) =>
              s.id === params.sessionId ? { ...s, eventCount: params.eventCount! } : s,
            ),
          },
    ),
    addSession: assign(({ context }, params: { session: InspectionSession }) => ({
      sessions: [params.session, ...context.sessions.filter((s) => s.id !== params.session.id)],
    })),
    setSourceRetention: assign(({ context }, params: { sourceId: string; maxEvents: number; maxDays: number }) => ({
      sources: context.sources.map((s) =>
        s.id === params.sourceId ? { ...s, maxEvents: params.maxEvents, maxDays: params.maxDays } : s,
      ),
    })),
    markRevoked: assign(({ context }, params: { sourceId: string; revokedAt: string }) => ({
      sources: context.sources.map((s) => (s.id === params.sourceId ? { ...s, revokedAt: params.revokedAt } : s)),
    })),
  },
}).createMachine({
  id: 'inspection',
  context: ({ input }) => ({
    ...input,
    canEdit: input.canEdit ?? input.isOwner,
    sources: [],
    sessions: [],
    sessionId: null,
    events: [],
    actorId: null,
    position: null,
    createdKey: null,
    layout: null,
    savedMachineId: null,
    error: null,
    feedDown: false,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'load',
        src: 'load',
        input: ({ context }) => ({ projectId: context.projectId }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'ready',
            actions: assign(({ event }) => {
              const { sources, sessions } = (event.output as { ok: true; value: Loaded }).value;
              return { sources, sessions, error: null };
            }),
          },
          {
            target: 'failed',
            actions: assign({ error: ({ event }) => (event.output as { ok: false; message: string }).message }),
          },
        ],
        onError: { target: 'failed', actions: assign({ error: 'Inspection could not be loaded.' }) },
      },
    },
    failed: { on: { 'inspection.retry': 'loading' } },
    ready: {
      invoke: [
        { id: 'feed', src: 'feed', input: ({ context }) => ({ projectId: context.projectId }) },
        {
          id: 'follow',
          src: 'follow',
          input: ({ context }) => ({ projectId: context.projectId, userId: context.userId ?? '' }),
        },
      ],
      on: {
        'inspection.eventsReceived': {
          actions: {
            type: 'appendLive',
            params: ({ event }) => ({ events: event.events, sessionCount: event.sessionCount }),
          },
        },
        'inspection.sessionOpened': {
          actions: { type: 'addSession', params: ({ event }) => ({ session: event.session }) },
        },
        'inspection.sessionEnded': {
          actions: { type: 'addSession', params: ({ event }) => ({ session: event.session }) },
        },
        'inspection.sourceUpdated': {
          actions: { type: 'setSourceRetention', params: ({ event }) => event },
        },
        'inspection.sourceRevoked': {
          actions: { type: 'markRevoked', params: ({ event }) => event },
        },
        'inspection.feedJoined': { actions: assign({ feedDown: false }) },
        'inspection.feedLost': { actions: assign({ feedDown: true }) },
        'inspection.dismissKey': { actions: assign({ createdKey: null }) },
        'inspection.dismissError': { actions: assign({ error: null }) },
        'inspection.scrub': {
          guard: ({ context, event }) => event.position >= 0 && event.position <= context.events.length,
          actions: [
            assign({ position: ({ event }) => event.position }),
            { type: 'tellLook', params: { chosen: true } },
          ],
        },
        'inspection.followLive': {
          actions: [assign({ position: null }), { type: 'tellLook', params: { chosen: true } }],
        },
        'inspection.present': {
          guard: ({ context }) => context.userId !== undefined,
          actions: sendTo('follow', ({ context }): FollowIntent => ({ type: 'follow.present', look: lookOf(context) })),
        },
        'inspection.stopPresenting': { actions: sendTo('follow', { type: 'follow.stopPresenting' }) },
        'inspection.follow': {
          actions: sendTo('follow', ({ event }): FollowIntent => ({ type: 'follow.follow', userId: event.userId })),
        },
        'inspection.unfollow': { actions: sendTo('follow', { type: 'follow.unfollow' }) },
      },
      type: 'parallel',
      states: {
        work: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'inspection.createSource': {
                  guard: ({ context, event }) => context.isOwner && event.name.trim().length > 0,
                  target: 'creating',
                },
                'inspection.revokeSource': { guard: 'isOwner', target: 'revoking' },
                'inspection.setRetention': { guard: 'canEdit', target: 'settingRetention' },
                'inspection.saveMachine': {
                  guard: { type: 'hasName', params: ({ event }) => ({ name: event.name }) },
                  target: 'saving',
                },
              },
            },
            creating: {
              invoke: {
                id: 'createSource',
                src: 'createSource',
                input: ({ context, event }) => ({
                  projectId: context.projectId,
                  name: (event as { name: string }).name.trim(),
                }),
                onDone: {
                  target: 'idle',
                  actions: assign(({ context, event }) =>
                    event.output.ok
                      ? {
                          sources: [event.output.value.source, ...context.sources],
                          createdKey: { sourceId: event.output.value.source.id, key: event.output.value.key },
                          error: null,
                        }
                      : { error: event.output.message },
                  ),
                },
                onError: { target: 'idle', actions: assign({ error: 'The source could not be created.' }) },
              },
            },
            revoking: {
              invoke: {
                id: 'revokeSource',
                src: 'revokeSource',
                input: ({ event }) => ({ sourceId: (event as { sourceId: string }).sourceId }),
                onDone: {
                  target: 'idle',
                  actions: assign(({ context, event }) => {
                    if (!event.output.ok) return { error: event.output.message };
                    const { sourceId, revokedAt } = event.output.value;
                    return {
                      sources: context.sources.map((s) => (s.id === sourceId ? { ...s, revokedAt } : s)),
                      createdKey: context.createdKey?.sourceId === sourceId ? null : context.createdKey,
                      error: null,
                    };
                  }),
                },
                onError: { target: 'idle', actions: assign({ error: 'The source could not be revoked.' }) },
              },
            },
            settingRetention: {
              invoke: {
                id: 'setRetention',
                src: 'setRetention',
                input: ({ event }) => {
                  const { sourceId, maxEvents, maxDays } = event as {
                    sourceId: string;
                    maxEvents: number;
                    maxDays: number;
                  };
                  return { sourceId, maxEvents, maxDays };
                },
                onDone: [
                  {
                    guard: ({ event }) => event.output.ok,
                    target: 'idle',
                    actions: [
                      {
                        type: 'setSourceRetention',
                        params: ({ event }) =>
                          (
                            event.output as {
                              ok: true;
                              value: { sourceId: string; maxEvents: number; maxDays: number };
                            }
                          ).value,
                      },
                      assign({ error: null }),
                    ],
                  },
                  {
                    target: 'idle',
                    actions: assign({ error: ({ event }) => (event.output as { ok: false; message: string }).message }),
                  },
                ],
                onError: { target: 'idle', actions: assign({ error: 'What is kept could not be changed.' }) },
              },
            },
            saving: {
              invoke: {
                id: 'saveMachine',
                src: 'saveMachine',
                input: ({ context, event }) => ({
                  projectId: context.projectId,
                  ...(event as { name: string; config: Record<string, unknown> }),
                }),
                onDone: {
                  target: 'idle',
                  actions: assign(({ event }) =>
                    event.output.ok
                      ? { savedMachineId: event.output.value, error: null }
                      : { error: event.output.message },
                  ),
                },
                onError: { target: 'idle', actions: assign({ error: 'The machine could not be saved.' }) },
              },
            },
          },
        },
        session: {
          initial: 'watching',
          on: {
            'inspection.selectSession': {
              target: '.loadingEvents',
              actions: [
                assign({
                  sessionId: ({ event }) => event.sessionId,
                  events: [],
                  actorId: null,
                  position: null,
                  layout: null,
                }),
                { type: 'tellLook', params: { chosen: true } },
              ],
            },
            // Following a presenter: their session (read from its start), or their position in it.
            'inspection.lookFollowed': [
              {
                guard: ({ context, event }) =>
                  event.look.sessionId !== null && event.look.sessionId !== context.sessionId,
                target: '.loadingEvents',
                actions: assign(({ event }) => ({
                  sessionId: event.look.sessionId,
                  events: [],
                  actorId: null,
                  position: event.look.position,
                  layout: null,
                })),
              },
              { actions: assign({ position: ({ event }) => event.look.position }) },
            ],
            // A batch too big for one message: the database's count for the list, the rows read back.
            'inspection.eventsStored': [
              {
                guard: ({ context, event }) => event.sessionId === context.sessionId,
                target: '.loadingEvents',
                actions: { type: 'setSessionCount', params: ({ event }) => event },
              },
              { actions: { type: 'setSessionCount', params: ({ event }) => event } },
            ],
            // Live events picking the session: read it from its start.
            'inspection.eventsReceived': {
              guard: ({ context, event }) => context.sessionId === null && event.events.length > 0,
              target: '.loadingEvents',
              actions: [
                assign({ sessionId: ({ event }) => event.events[0]!.session_id, events: [] }),
                { type: 'tellLook', params: { chosen: false } },
              ],
            },
            // Back on the feed after a drop: read what was stored meanwhile.
            'inspection.feedJoined': {
              guard: ({ context }) => context.sessionId !== null,
              target: '.loadingEvents',
              actions: assign({ feedDown: false }),
            },
          },
          states: {
            watching: {},
            loadingEvents: {
              invoke: {
                id: 'loadEvents',
                src: 'loadEvents',
                input: ({ context }) => ({ sessionId: context.sessionId ?? '', afterSeq: lastSeq(context.events) }),
                onDone: {
                  target: 'watching',
                  actions: [
                    assign(({ context, event }) => {
                      if (!event.output.ok) return { error: event.output.message };
                      // Live events may have arrived while reading: merge by seq.
                      const bySeq = new Map(context.events.map((e) => [e.seq, e]));
                      for (const e of event.output.value) bySeq.set(e.seq, e);
                      return { events: [...bySeq.values()].sort((x, y) => x.seq - y.seq) };
                    }),
                    raise({ type: 'inspection.eventsRead' }),
                  ],
                },
                onError: { target: 'watching', actions: assign({ error: 'The session could not be read.' }) },
              },
            },
          },
        },
        diagram: {
          initial: 'none',
          on: {
            'inspection.selectActor': {
              target: '.laying',
              actions: [
                assign({ actorId: ({ event }) => event.actorId }),
                { type: 'tellLook', params: { chosen: true } },
              ],
            },
            'inspection.lookFollowed': {
              guard: ({ context, event }) =>
                event.look.actorId !== null &&
                (event.look.actorId !== context.actorId || event.look.sessionId !== context.sessionId),
              target: '.laying',
              actions: assign({ actorId: ({ event }) => event.look.actorId }),
            },
            // The picked actor's definition may have been read only now (a followed look, a reload).
            'inspection.eventsRead': {
              guard: ({ context }) =>
                context.actorId !== null &&
                context.layout?.actorId !== context.actorId &&
                definitionOf(context, context.actorId) !== null,
              target: '.laying',
            },
          },
          states: {
            none: {},
            laying: {
              invoke: {
                id: 'layoutDiagram',
                src: 'layoutDiagram',
                input: ({ context }) => ({ config: definitionOf(context, context.actorId) ?? {} }),
                onDone: {
                  target: 'none',
                  actions: assign(({ context, event }) => ({
                    layout: event.output && context.actorId ? { actorId: context.actorId, ...event.output } : null,
                  })),
                },
                onError: { target: 'none', actions: assign({ layout: null }) },
              },
            },
          },
        },
      },
    },
  },
});

/** The text of the machine config an actor's `@xstate.actor` event carried, as the events stand. */
export function definitionTextOf(context: InspectionContext, actorId: string | null): string | null {
  if (!actorId) return null;
  for (let i = context.events.length - 1; i >= 0; i--) {
    const body = context.events[i]!.body;
    if (body.type === '@xstate.actor' && body.sessionId === actorId && typeof body.definition === 'string')
      return body.definition;
  }
  return null;
}

/** A definition's text parsed, or null when it is not JSON. */
export function parseDefinitionText(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The machine config an actor's `@xstate.actor` event carried, as the events stand. */
export function definitionOf(context: InspectionContext, actorId: string | null): Record<string, unknown> | null {
  return parseDefinitionText(definitionTextOf(context, actorId));
}

import { assertEvent, assign, enqueueActions, sendParent, setup } from 'xstate';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import { lastSeq, leavesGap, mergeBySeq } from '../../src/lib/inspection/seq.ts';
import type { InspectionResult } from '../../src/lib/ports/inspection.ts';
import { definitionOf } from '../../src/lib/inspection/actor-config.ts';
import { requestNotProvided, requestValue } from '../shared.ts';

/**
 * One picked session on the inspection page: its events (read from the database,
 * then followed live, with nothing lost and nothing twice), the replay position and the
 * picked actor. Invoked by inspection.machine.ts (id `session`) per picked session; the parent
 * forwards the feed's batches of this session's source and re-invokes it for another session.
 *
 * Missed events: seqs are numbered per source, so a batch whose first seq lies beyond the
 * highest seq heard of the source means a broadcast was dropped or is late. The machine then
 * holds the batch and reads the session from its newest held seq (the database's order),
 * merging by seq; a late batch arriving after that read adds nothing twice.
 */

export interface InspectionSessionInput {
  sessionId: string;
  actorId: string | null;
  position: number | null;
}

export interface InspectionSessionContext extends InspectionSessionInput {
  events: StoredInspectionEvent[];
  /** Live events of this session that arrived during a read, merged when it answers. */
  held: StoredInspectionEvent[];
  /** The highest seq heard of this session's source (any of its sessions), 0 until known. */
  heard: number;
  /** A read must follow the one running (a gap or a stored batch heard meanwhile). */
  readAgain: boolean;
  /** The actor whose definition was last sent to be drawn. */
  drawn: string | null;
  error: string | null;
}

/** Tags a view asks about: reading the log, or following it live. */
export type InspectionSessionTag = 'syncing' | 'live';

export type InspectionSessionEvent =
  /** Forwarded by the parent: a live batch of this session's source (this session or another). */
  | { type: 'inspection.eventsReceived'; events: StoredInspectionEvent[] }
  /** A batch of this session too big for one message: read it back. */
  | { type: 'inspection.eventsStored'; sessionId: string; lastSeq: number }
  /** Back on the feed after a drop: read what was stored meanwhile. */
  | { type: 'inspection.feedJoined' }
  | { type: 'inspection.selectActor'; actorId: string }
  | { type: 'inspection.scrub'; position: number }
  | { type: 'inspection.followLive' }
  | { type: 'inspection.dismissError' }
  /** A followed presenter's actor and position in this same session. */
  | { type: 'session.lookFollowed'; actorId: string | null; position: number | null };

/** What the session machine tells its parent. */
export type InspectionSessionReport =
  | { type: 'inspection.lookChanged'; actorId: string | null; position: number | null }
  | { type: 'inspection.drawActor'; actorId: string; config: Record<string, unknown> };

type Read = InspectionResult<StoredInspectionEvent[]>;

const mine = (c: InspectionSessionContext, events: readonly StoredInspectionEvent[]) =>
  events.filter((e) => e.session_id === c.sessionId);
const heardAfter = (c: InspectionSessionContext, events: readonly StoredInspectionEvent[]) =>
  Math.max(c.heard, lastSeq(events));

/** The named `tellParent` action with its report (typed loosely: actions being defined cannot name each other). */
const tell = (report: InspectionSessionReport) => ({ type: 'tellParent', params: report }) as never;

export const inspectionSessionMachine = setup({
  types: {
    context: {} as InspectionSessionContext,
    input: {} as InspectionSessionInput,
    events: {} as InspectionSessionEvent,
    tags: {} as InspectionSessionTag,
  },
  actors: {
    loadEvents: requestNotProvided<Read, { sessionId: string; afterSeq: number }>('inspection', 'loadEvents'),
  },
  guards: {
    /** A position within the events shown (0: before the first). */
    inRange: ({ context, event }) =>
      event.type === 'inspection.scrub' && event.position >= 0 && event.position <= context.events.length,
    leavesGap: ({ context, event }) =>
      event.type === 'inspection.eventsReceived' &&
      leavesGap(event.events, Math.max(context.heard, lastSeq(context.events))),
    isMine: ({ context, event }) => event.type === 'inspection.eventsStored' && event.sessionId === context.sessionId,
    readAgain: ({ context }) => context.readAgain,
  },
  actions: {
    pickActor: assign(({ event }) => {
      assertEvent(event, 'inspection.selectActor');
      return { actorId: event.actorId };
    }),
    scrub: assign(({ event }) => {
      assertEvent(event, 'inspection.scrub');
      return { position: event.position };
    }),
    followLive: assign({ position: null }),
    takeFollowedLook: assign(({ event }) => {
      assertEvent(event, 'session.lookFollowed');
      return { actorId: event.actorId, position: event.position };
    }),
    clearError: assign({ error: null }),
    /** Something was missed or stored meanwhile: read once more before going live. */
    markReadAgain: assign({ readAgain: true }),
    /** A live batch that follows on: this session's new events appended. */
    append: assign(({ context, event }) => {
      const batch = (event as { events: StoredInspectionEvent[] }).events;
      const after = lastSeq(context.events);
      const fresh = mine(context, batch).filter((e) => e.seq > after);
      return {
        heard: heardAfter(context, batch),
        events: fresh.length > 0 ? [...context.events, ...fresh] : context.events,
      };
    }),
    /** A live batch during a read (or leaving a gap): held until the read answers. */
    hold: assign(({ context, event }) => {
      const batch = (event as { events: StoredInspectionEvent[] }).events;
      const held = mine(context, batch);
      return { heard: heardAfter(context, batch), held: held.length > 0 ? [...context.held, ...held] : context.held };
    }),
    /**
     * A read answered: merged by seq. What was held waits while another read must follow
     * (it may lie beyond numbers still missing, and the next read starts after the newest shown).
     */
    merge: assign(({ context, event }, params: { withHeld: boolean }) => {
      const read = (event as { output?: Read }).output;
      const events = mergeBySeq(context.events, read?.ok ? read.value : [], params.withHeld ? context.held : []);
      return {
        events,
        held: params.withHeld ? [] : context.held,
        heard: Math.max(context.heard, lastSeq(events)),
        readAgain: false,
        error: read === undefined ? 'The session could not be read.' : read.ok ? context.error : read.message,
      };
    }),
    /** What the parent is told (a named action, so a graph traversal without a parent can leave it out). */
    tellParent: sendParent((_, params: InspectionSessionReport) => params),
    /** The picked actor's definition sent to be drawn, once it is known and not drawn yet. */
    draw: enqueueActions(({ context, enqueue }) => {
      if (context.actorId === null || context.drawn === context.actorId) return;
      const config = definitionOf(context.events, context.actorId);
      if (config === null) return;
      enqueue.assign({ drawn: context.actorId });
      enqueue(tell({ type: 'inspection.drawActor', actorId: context.actorId, config }));
    }),
    report: enqueueActions(({ context, enqueue }) =>
      enqueue(tell({ type: 'inspection.lookChanged', actorId: context.actorId, position: context.position })),
    ),
  },
}).createMachine({
  id: 'inspectionSession',
  context: ({ input }) => ({
    ...input,
    events: [],
    held: [],
    heard: 0,
    readAgain: false,
    drawn: null,
    error: null,
  }),
  on: {
    'inspection.selectActor': {
      actions: ['pickActor', 'draw', 'report'],
    },
    'inspection.scrub': {
      guard: 'inRange',
      actions: ['scrub', 'report'],
    },
    'inspection.followLive': { actions: ['followLive', 'report'] },
    'session.lookFollowed': { actions: ['takeFollowedLook', 'draw'] },
    'inspection.dismissError': { actions: 'clearError' },
  },
  initial: 'catchingUp',
  states: {
    catchingUp: {
      tags: ['syncing'],
      invoke: {
        id: 'loadEvents',
        src: 'loadEvents',
        input: ({ context }) => ({ sessionId: context.sessionId, afterSeq: lastSeq(context.events) }),
        ...requestValue({
          done: [
            {
              guard: 'readAgain',
              target: 'catchingUp',
              reenter: true,
              actions: { type: 'merge', params: { withHeld: false } },
            },
            { target: 'live', actions: [{ type: 'merge', params: { withHeld: true } }, 'draw'] },
          ],
          threw: { target: 'live', actions: [{ type: 'merge', params: { withHeld: true } }, 'draw'] },
        }),
      },
      on: {
        'inspection.eventsReceived': [{ guard: 'leavesGap', actions: ['hold', 'markReadAgain'] }, { actions: 'hold' }],
        'inspection.eventsStored': { guard: 'isMine', actions: 'markReadAgain' },
        'inspection.feedJoined': { actions: 'markReadAgain' },
      },
    },
    live: {
      tags: ['live'],
      on: {
        'inspection.eventsReceived': [
          { guard: 'leavesGap', target: 'catchingUp', actions: 'hold' },
          { actions: 'append' },
        ],
        'inspection.eventsStored': { guard: 'isMine', target: 'catchingUp' },
        'inspection.feedJoined': { target: 'catchingUp' },
      },
    },
  },
});

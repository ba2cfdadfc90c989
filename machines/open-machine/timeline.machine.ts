import { assertEvent, assign, type ActorRef, type Snapshot, enqueueActions, setup } from 'xstate';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { TimelineFact, TimelineResult } from '../../src/lib/ports/timeline.ts';
import {
  appendOps,
  definitionAt,
  emptyHistory,
  eventEntry,
  insertEntries,
  joinedEntry,
  NO_FILTER,
  simulationEntry,
  type AuthoredOp,
  type EditEntry,
  type History,
  type SimulationMark,
  type SimulationStart,
  type TimelineEntry,
  type TimelineFilter,
  type TimelineKind,
} from '../../src/lib/timeline/index.ts';
import { layoutMachine } from './layout.machine.ts';
import { output, request, requestNotProvided, streamNotProvided, UNEXPECTED } from '../shared.ts';

/**
 * The timeline of one machine: everything that happened to it, in order, live. Invoked
 * by the open machine, which tells it when the op log's head moved (`timeline.headMoved`,
 * from the document) and who is on the machine (`timeline.peersChanged`, from presence).
 * Three regions:
 * - `edits` reads the op log with authors after what it has folded (src/lib/timeline:
 *   one entry per batch, in words, and the definition at any version), again whenever
 *   the head moves past it;
 * - `simulations` reads the machine's simulations and their events, then follows them
 *   live (`facts`), reading again after every resubscribe;
 * - `preview` is time travel: an edit opened shows the definition as it was after it,
 *   laid out by its own `previewLayout`, read-only; `timeline.restore` asks the `editor`
 *   (the open machine) to replace the definition with it (`machine.replace`: ordinary undoable ops).
 */

export type TimelineIntent =
  /** Show entries of this kind too, or no longer (none chosen shows every kind). */
  | { type: 'timeline.filter.toggle'; kind: TimelineKind }
  /** Show only this person's entries (null: everyone's). */
  | { type: 'timeline.filter.person'; person: string | null }
  /** Time travel to the version after this edit entry. */
  | { type: 'timeline.open'; key: string }
  | { type: 'timeline.close' }
  | { type: 'timeline.restore' }
  | { type: 'timeline.retry' };

/** Facts from the open machine. */
export type TimelineNotice =
  { type: 'timeline.headMoved'; version: number } | { type: 'timeline.peersChanged'; userIds: string[]; at: string };

export type TimelineEvent = TimelineIntent | TimelineNotice | TimelineFact;

export interface TimelinePreview {
  entry: EditEntry;
  definition: MachineDefinition;
}

/** Who applies a restored version: the open machine, which sends it as ops to the document. */
export type TimelineEditor = ActorRef<Snapshot<unknown>, { type: 'machine.replace'; definition: MachineDefinition }>;

export interface TimelineInput {
  machineId: string;
  editor?: TimelineEditor | null;
}

export interface TimelineContext {
  machineId: string;
  editor: TimelineEditor | null;
  /** The log's head as the document last said; the edits region reads until it has it. */
  head: number;
  history: History;
  /** Simulations, their events and joins, in time order (edits are `history.entries`). */
  others: TimelineEntry[];
  /** Who is on the machine now (a join is someone not here before). */
  present: string[];
  joins: number;
  filter: TimelineFilter;
  preview: TimelinePreview | null;
  error: string | null;
}

type SimulationsRead = TimelineResult<{ starts: SimulationStart[]; marks: SimulationMark[] }>;

const failure = (output: TimelineResult<unknown>): string | null => (output.ok ? null : output.error.message);

export const timelineMachine = setup({
  types: {
    input: {} as TimelineInput,
    context: {} as TimelineContext,
    events: {} as TimelineEvent,
    children: {} as {
      previewLayout: 'previewLayout';
      readOps: 'readOps';
      readSimulations: 'readSimulations';
      facts: 'facts';
    },
    tags: {} as 'loading' | 'previewing' | 'failed',
  },
  actors: {
    readOps: requestNotProvided<TimelineResult<AuthoredOp[]>, { machineId: string; after: number }>(
      'timeline',
      'readOps',
    ),
    readSimulations: requestNotProvided<SimulationsRead, { machineId: string }>('timeline', 'readSimulations'),
    facts: streamNotProvided<TimelineFact, { machineId: string }>('timeline', 'facts'),
    previewLayout: layoutMachine,
  },
  guards: {
    refused: (_, output: TimelineResult<unknown>) => !output.ok,
    behind: ({ context }) => context.head > context.history.version,
    isNewer: ({ context, event }) => event.type === 'timeline.headMoved' && event.version > context.head,
    hasNewPeer: ({ context, event }) =>
      event.type === 'timeline.peersChanged' && event.userIds.some((id) => !context.present.includes(id)),
    peersLeft: ({ context, event }) =>
      event.type === 'timeline.peersChanged' && context.present.some((id) => !event.userIds.includes(id)),
    isEdit: ({ context, event }) =>
      event.type === 'timeline.open' && context.history.entries.some((e) => e.key === event.key),
  },
  actions: {
    setHead: assign(({ event }) => {
      assertEvent(event, 'timeline.headMoved');
      return { head: event.version };
    }),
    foldOps: assign(({ context }, output: TimelineResult<AuthoredOp[]>) => {
      if (!output.ok) return {};
      // Nothing after our version that we may read: the head we were told of is as far as
      // the log goes for us, so stop here until the document says it moved again (reading
      // again at once would spin).
      if (output.value.length === 0) return { head: context.history.version };
      const history = appendOps(context.history, output.value);
      // A gap cannot come from a read after `version`; if the server says so anyway, show what we have.
      return history ? { history, head: Math.max(context.head, history.version) } : {};
    }),
    mergeSimulations: assign(({ context }, output: SimulationsRead) => {
      if (!output.ok) return {};
      const added = [...output.value.starts.map(simulationEntry), ...output.value.marks.map(eventEntry)];
      return { others: insertEntries(context.others, added) };
    }),
    simulationStarted: assign(({ context, event }) => {
      assertEvent(event, 'timeline.simulationStarted');
      return { others: insertEntries(context.others, [simulationEntry(event.simulation)]) };
    }),
    eventsSent: assign(({ context, event }) => {
      assertEvent(event, 'timeline.eventsSent');
      return { others: insertEntries(context.others, event.marks.map(eventEntry)) };
    }),
    peersJoined: assign(({ context, event }) => {
      assertEvent(event, 'timeline.peersChanged');
      const arrived = event.userIds.filter((id) => !context.present.includes(id));
      const joined = arrived.map((id, i) => joinedEntry(id, event.at, context.joins + i + 1));
      return {
        present: [...event.userIds],
        joins: context.joins + arrived.length,
        others: insertEntries(context.others, joined),
      };
    }),
    peersLeft: assign(({ event }) => {
      assertEvent(event, 'timeline.peersChanged');
      return { present: [...event.userIds] };
    }),
    toggleKind: assign(({ context, event }) => {
      assertEvent(event, 'timeline.filter.toggle');
      const { kinds, person } = context.filter;
      const next = kinds.includes(event.kind) ? kinds.filter((k) => k !== event.kind) : [...kinds, event.kind];
      return { filter: { kinds: next, person } };
    }),
    choosePerson: assign(({ context, event }) => {
      assertEvent(event, 'timeline.filter.person');
      return { filter: { kinds: context.filter.kinds, person: event.person } };
    }),
    openPreview: assign(({ context, event }) => {
      assertEvent(event, 'timeline.open');
      const entry = context.history.entries.find((e) => e.key === event.key);
      return entry ? { preview: { entry, definition: definitionAt(context.history, entry.lastSeq) } } : {};
    }),
    closePreview: assign({ preview: null }),
    layOutPreview: enqueueActions(({ context, enqueue }) => {
      if (context.preview)
        enqueue.sendTo('previewLayout', { type: 'layout.request', definition: context.preview.definition });
    }),
    restore: enqueueActions(({ context, enqueue }) => {
      if (context.preview && context.editor)
        enqueue.sendTo(context.editor, { type: 'machine.replace', definition: context.preview.definition });
    }),
    setError: assign((_, message: string | null) => ({ error: message })),
    showFailure: assign((_, output: TimelineResult<unknown>) => ({ error: failure(output) })),
    showUnexpected: assign({ error: UNEXPECTED }),
  },
}).createMachine({
  id: 'timeline',
  context: ({ input }) => ({
    machineId: input.machineId,
    editor: input.editor ?? null,
    head: 0,
    history: emptyHistory(),
    others: [],
    present: [],
    joins: 0,
    filter: NO_FILTER,
    preview: null,
    error: null,
  }),
  invoke: {
    id: 'facts',
    src: 'facts',
    input: ({ context }) => ({ machineId: context.machineId }),
  },
  on: {
    'timeline.simulationStarted': { actions: 'simulationStarted' },
    'timeline.eventsSent': { actions: 'eventsSent' },
    'timeline.peersChanged': [
      { guard: 'hasNewPeer', actions: 'peersJoined' },
      { guard: 'peersLeft', actions: 'peersLeft' },
    ],
    'timeline.filter.toggle': { actions: 'toggleKind' },
    'timeline.filter.person': { actions: 'choosePerson' },
  },
  type: 'parallel',
  states: {
    edits: {
      initial: 'reading',
      on: { 'timeline.headMoved': { guard: 'isNewer', actions: 'setHead' } },
      states: {
        reading: {
          tags: ['loading'],
          invoke: {
            id: 'readOps',
            src: 'readOps',
            input: ({ context }) => ({ machineId: context.machineId, after: context.history.version }),
            ...request({
              refused: { target: 'failed', actions: { type: 'showFailure', params: output } },
              done: {
                target: 'idle',
                actions: [
                  { type: 'foldOps', params: output },
                  { type: 'setError', params: null },
                ],
              },
              threw: { target: 'failed', actions: 'showUnexpected' },
            }),
          },
        },
        idle: {
          // The head moved during the read: read the rest.
          always: { guard: 'behind', target: 'reading' },
          on: { 'timeline.headMoved': { guard: 'isNewer', actions: 'setHead', target: 'reading' } },
        },
        failed: {
          tags: ['failed'],
          on: { 'timeline.retry': 'reading' },
        },
      },
    },
    simulations: {
      initial: 'reading',
      states: {
        reading: {
          tags: ['loading'],
          invoke: {
            id: 'readSimulations',
            src: 'readSimulations',
            input: ({ context }) => ({ machineId: context.machineId }),
            ...request({
              refused: { target: 'failed', actions: { type: 'showFailure', params: output } },
              done: { target: 'live', actions: { type: 'mergeSimulations', params: output } },
              threw: { target: 'failed', actions: 'showUnexpected' },
            }),
          },
        },
        live: {
          // Back after a drop: what was sent meanwhile is in the tables.
          on: { 'timeline.subscribed': 'reading' },
        },
        failed: {
          tags: ['failed'],
          on: { 'timeline.retry': 'reading', 'timeline.subscribed': 'reading' },
        },
      },
    },
    preview: {
      initial: 'closed',
      states: {
        closed: {
          on: { 'timeline.open': { guard: 'isEdit', target: 'open', actions: 'openPreview' } },
        },
        open: {
          tags: ['previewing'],
          invoke: { id: 'previewLayout', src: 'previewLayout' },
          initial: 'shown',
          // Entered after the invoke above started, so the layout is there to ask.
          states: { shown: { entry: 'layOutPreview' } },
          on: {
            'timeline.open': { guard: 'isEdit', actions: ['openPreview', 'layOutPreview'] },
            'timeline.close': { target: 'closed', actions: 'closePreview' },
            'timeline.restore': { target: 'closed', actions: ['restore', 'closePreview'] },
          },
        },
      },
    },
  },
});

export type TimelineMachine = typeof timelineMachine;

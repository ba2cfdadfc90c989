import { assertEvent, assign, emit, setup, stateIn } from 'xstate';
import {
  applyMachineChange,
  mergeRead,
  removeMachine,
  upsertMachine,
  type MachineListChange,
} from '../../src/lib/machine-list.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { MachineListEvent, MachineSummary, Result } from '../../src/lib/ports/document.ts';
import { output, request, requestNotProvided, streamNotProvided } from '../shared.ts';
import { commentCountsMachine } from './comment-counts.machine.ts';

/**
 * A project's machines, live: loaded once the list's stream is subscribed (and again
 * after it comes back, to catch up), kept current by the stream, newest edit first
 * (src/lib/machine-list.ts). Creating (one machine, or several examples at once),
 * renaming and deleting run one at a time; a created machine is announced
 * (`list.created`) so the view can open it. A reload keeps the list on screen
 * (`loading` with machines is a refresh, not a blank page). Its child `commentCounts`
 * (comment-counts.machine.ts) keeps this person's unread comments per machine, live.
 */

export interface NewMachine {
  name: string;
  definition: MachineDefinition;
}

export type MachineListIntent =
  | { type: 'list.create'; machines: NewMachine[] }
  | { type: 'list.delete'; machineId: string }
  | { type: 'list.rename'; machineId: string; name: string }
  | { type: 'list.retry' }
  | { type: 'list.dismissError' };

export type MachineListEmitted = { type: 'list.created'; machines: MachineSummary[] };

export interface MachineListContext {
  projectId: string;
  machines: MachineSummary[];
  /** Changes streamed while a load is in flight: its answer may predate them, so they go on top of it. */
  sinceLoad: MachineListChange[];
  /** The stream came back during a create, rename or delete: reload when it is done (not abandon it). */
  reloadDue: boolean;
  error: string | null;
}

export type MachineListTag = 'loading' | 'ready' | 'busy' | 'failed';

const LOAD_FAILED = "Couldn't load this project's machines.";
const CREATE_FAILED = "Couldn't create the machine.";
const RENAME_FAILED = "Couldn't rename the machine.";
const DELETE_FAILED = "Couldn't delete the machine.";

export const machineListMachine = setup({
  types: {
    input: {} as { projectId: string },
    context: {} as MachineListContext,
    events: {} as MachineListIntent | MachineListEvent,
    emitted: {} as MachineListEmitted,
    tags: {} as MachineListTag,
  },
  actors: {
    // Bare: the composition root provides it wired to the comment counts port.
    commentCounts: commentCountsMachine,
    listEvents: streamNotProvided<MachineListEvent, { projectId: string }>('machine list', 'listEvents'),
    loadMachines: requestNotProvided<Result<MachineSummary[]>, { projectId: string }>('machine list', 'loadMachines'),
    createMachines: requestNotProvided<Result<MachineSummary[]>, { projectId: string; machines: NewMachine[] }>(
      'machine list',
      'createMachines',
    ),
    /** Answers the deleted machine's id. */
    deleteMachine: requestNotProvided<Result<string>, { machineId: string }>('machine list', 'deleteMachine'),
    renameMachine: requestNotProvided<Result<MachineSummary>, { machineId: string; name: string }>(
      'machine list',
      'renameMachine',
    ),
  },
  actions: {
    applyEvent: assign(({ context, event }) => {
      assertEvent(event, ['machines.upserted', 'machines.deleted']);
      return { machines: applyMachineChange(context.machines, event) };
    }),
    rememberChange: assign(({ context, event }) => {
      assertEvent(event, ['machines.upserted', 'machines.deleted']);
      return { sinceLoad: [...context.sinceLoad, event] };
    }),
    startLoad: assign({ sinceLoad: [], reloadDue: false }),
    showList: assign(({ context }, result: Result<MachineSummary[]>) =>
      result.ok ? { machines: mergeRead(result.value, context.sinceLoad), sinceLoad: [], error: null } : {},
    ),
    addCreated: assign(({ context }, result: Result<MachineSummary[]>) =>
      result.ok ? { machines: result.value.reduce(upsertMachine, context.machines), error: null } : {},
    ),
    announceCreated: emit((_, result: Result<MachineSummary[]>) => ({
      type: 'list.created' as const,
      machines: result.ok ? result.value : [],
    })),
    showRenamed: assign(({ context }, result: Result<MachineSummary>) =>
      result.ok ? { machines: upsertMachine(context.machines, result.value), error: null } : {},
    ),
    dropDeleted: assign(({ context }, result: Result<string>) =>
      result.ok ? { machines: removeMachine(context.machines, result.value), error: null } : {},
    ),
    showRefusal: assign((_, result: Result<unknown>) => ({ error: result.ok ? null : result.error.message })),
    /** A request actor that threw: say which request, in words for people. */
    showFailure: assign((_, message: string) => ({ error: message })),
    deferReload: assign({ reloadDue: true }),
    clearError: assign({ error: null }),
  },
  guards: {
    refused: (_, result: Result<unknown>) => !result.ok,
    noRequestRunning: stateIn({ ready: 'idle' }),
    reloadDue: ({ context }) => context.reloadDue,
    hasMachines: ({ event }) => event.type === 'list.create' && event.machines.length > 0,
    hasName: ({ event }) => event.type === 'list.rename' && event.name.trim() !== '',
  },
}).createMachine({
  id: 'machineList',
  context: ({ input }) => ({ projectId: input.projectId, machines: [], sinceLoad: [], reloadDue: false, error: null }),
  invoke: [
    { id: 'listEvents', src: 'listEvents', input: ({ context }) => ({ projectId: context.projectId }) },
    { id: 'commentCounts', src: 'commentCounts', input: ({ context }) => ({ projectId: context.projectId }) },
  ],
  on: {
    'machines.upserted': { actions: 'applyEvent' },
    'machines.deleted': { actions: 'applyEvent' },
    'list.dismissError': { actions: 'clearError' },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      entry: 'startLoad',
      on: {
        'machines.upserted': { actions: ['applyEvent', 'rememberChange'] },
        'machines.deleted': { actions: ['applyEvent', 'rememberChange'] },
        // The stream went live after this read was sent: what changed in between is in neither, so read again.
        'machines.subscribed': { target: 'loading', reenter: true },
      },
      invoke: {
        id: 'loadMachines',
        src: 'loadMachines',
        input: ({ context }) => ({ projectId: context.projectId }),
        ...request({
          refused: { target: 'failed', actions: { type: 'showRefusal', params: output } },
          done: { target: 'ready', actions: { type: 'showList', params: output } },
          threw: { target: 'failed', actions: { type: 'showFailure', params: LOAD_FAILED } },
        }),
      },
    },
    failed: {
      tags: ['failed'],
      on: { 'list.retry': 'loading', 'machines.subscribed': 'loading' },
    },
    ready: {
      tags: ['ready'],
      // Back after a drop: what changed meanwhile is only in the table.
      on: { 'machines.subscribed': [{ guard: 'noRequestRunning', target: 'loading' }, { actions: 'deferReload' }] },
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'reloadDue', target: '#machineList.loading' },
          on: {
            'list.create': { guard: 'hasMachines', target: 'creating' },
            'list.delete': 'deleting',
            'list.rename': { guard: 'hasName', target: 'renaming' },
          },
        },
        creating: {
          tags: ['busy'],
          invoke: {
            id: 'createMachines',
            src: 'createMachines',
            input: ({ context, event }) => {
              assertEvent(event, 'list.create');
              return { projectId: context.projectId, machines: event.machines };
            },
            ...request({
              refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
              done: {
                target: 'idle',
                actions: [
                  { type: 'addCreated', params: output },
                  { type: 'announceCreated', params: output },
                ],
              },
              threw: { target: 'idle', actions: { type: 'showFailure', params: CREATE_FAILED } },
            }),
          },
        },
        renaming: {
          tags: ['busy'],
          invoke: {
            id: 'renameMachine',
            src: 'renameMachine',
            input: ({ event }) => {
              assertEvent(event, 'list.rename');
              return { machineId: event.machineId, name: event.name.trim() };
            },
            ...request({
              refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
              done: { target: 'idle', actions: { type: 'showRenamed', params: output } },
              threw: { target: 'idle', actions: { type: 'showFailure', params: RENAME_FAILED } },
            }),
          },
        },
        deleting: {
          tags: ['busy'],
          invoke: {
            id: 'deleteMachine',
            src: 'deleteMachine',
            input: ({ event }) => {
              assertEvent(event, 'list.delete');
              return { machineId: event.machineId };
            },
            ...request({
              refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
              done: { target: 'idle', actions: { type: 'dropDeleted', params: output } },
              threw: { target: 'idle', actions: { type: 'showFailure', params: DELETE_FAILED } },
            }),
          },
        },
      },
    },
  },
});

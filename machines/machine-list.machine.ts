import { throwError } from 'rxjs';
import { assertEvent, assign, emit, fromEventObservable, fromPromise, setup, stateIn } from 'xstate';
import type { MachineDefinition } from '../src/lib/model/types.ts';
import type { MachineListEvent, MachineSummary, Result } from '../src/lib/ports/document.ts';
import { notProvided } from './shared.ts';

/**
 * A project's machines, live: loaded once the list's stream is subscribed (and again
 * after it comes back, to catch up), kept current by the stream, newest edit first.
 * Creating (one machine, or several examples at once), renaming and deleting run one at a time;
 * a created machine is announced (`list.created`) so the view can open it. A reload keeps
 * the list on screen (`loading` with machines is a refresh, not a blank page).
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

type ListChange = Extract<MachineListEvent, { type: 'machines.upserted' | 'machines.deleted' }>;

export interface MachineListContext {
  projectId: string;
  machines: MachineSummary[];
  /** Changes streamed while a load is in flight: its answer may predate them, so they go on top of it. */
  sinceLoad: ListChange[];
  /** The stream came back during a create, rename or delete: reload when it is done (not abandon it). */
  reloadDue: boolean;
  error: string | null;
}

const byRecent = (a: MachineSummary, b: MachineSummary): number => b.updatedAt.localeCompare(a.updatedAt) || a.name.localeCompare(b.name);

function upsert(list: MachineSummary[], machine: MachineSummary): MachineSummary[] {
  const known = list.find((m) => m.id === machine.id);
  // An older row (a late event) never replaces a newer one.
  if (known && known.version > machine.version) return list;
  return [...list.filter((m) => m.id !== machine.id), machine].sort(byRecent);
}

function applyChange(list: MachineSummary[], change: ListChange): MachineSummary[] {
  return change.type === 'machines.upserted' ? upsert(list, change.machine) : list.filter((m) => m.id !== change.machineId);
}

export const machineListMachine = setup({
  types: {
    input: {} as { projectId: string },
    context: {} as MachineListContext,
    events: {} as MachineListIntent | MachineListEvent,
    emitted: {} as MachineListEmitted,
    tags: {} as 'loading' | 'ready' | 'busy' | 'failed',
  },
  actors: {
    listEvents: fromEventObservable<MachineListEvent, { projectId: string }>(() => throwError(() => notProvided('machine list', 'listEvents'))),
    loadMachines: fromPromise<Result<MachineSummary[]>, { projectId: string }>(() => Promise.reject(notProvided('machine list', 'loadMachines'))),
    createMachines: fromPromise<Result<MachineSummary[]>, { projectId: string; machines: NewMachine[] }>(() => Promise.reject(notProvided('machine list', 'createMachines'))),
    deleteMachine: fromPromise<Result<string>, { machineId: string }>(() => Promise.reject(notProvided('machine list', 'deleteMachine'))),
    renameMachine: fromPromise<Result<MachineSummary>, { machineId: string; name: string }>(() => Promise.reject(notProvided('machine list', 'renameMachine'))),
  },
  actions: {
    applyEvent: assign(({ context, event }) => {
      assertEvent(event, ['machines.upserted', 'machines.deleted']);
      return { machines: applyChange(context.machines, event) };
    }),
    rememberChange: assign(({ context, event }) => {
      assertEvent(event, ['machines.upserted', 'machines.deleted']);
      return { sinceLoad: [...context.sinceLoad, event] };
    }),
    deferReload: assign({ reloadDue: true }),
    clearError: assign({ error: null }),
  },
  guards: {
    noRequestRunning: stateIn({ ready: 'idle' }),
  },
}).createMachine({
  id: 'machineList',
  context: ({ input }) => ({ projectId: input.projectId, machines: [], sinceLoad: [], reloadDue: false, error: null }),
  invoke: { id: 'listEvents', src: 'listEvents', input: ({ context }) => ({ projectId: context.projectId }) },
  on: {
    'machines.upserted': { actions: 'applyEvent' },
    'machines.deleted': { actions: 'applyEvent' },
    'list.dismissError': { actions: 'clearError' },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      entry: assign({ sinceLoad: [], reloadDue: false }),
      on: {
        'machines.upserted': { actions: ['applyEvent', 'rememberChange'] },
        'machines.deleted': { actions: ['applyEvent', 'rememberChange'] },
        // The stream went live after this read was sent: what changed in between is in neither, so read again.
        'machines.subscribed': { target: 'loading', reenter: true },
      },
      invoke: {
        src: 'loadMachines',
        input: ({ context }) => ({ projectId: context.projectId }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'ready',
            actions: assign(({ context, event }) => ({
              machines: event.output.ok ? context.sinceLoad.reduce(applyChange, [...event.output.value].sort(byRecent)) : [],
              sinceLoad: [],
              error: null,
            })),
          },
          { target: 'failed', actions: assign(({ event }) => ({ error: event.output.ok ? null : event.output.error.message })) },
        ],
        onError: { target: 'failed', actions: assign({ error: "Couldn't load this project's machines." }) },
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
          always: { guard: ({ context }) => context.reloadDue, target: '#machineList.loading' },
          on: {
            'list.create': { guard: ({ event }) => event.machines.length > 0, target: 'creating' },
            'list.delete': 'deleting',
            'list.rename': { guard: ({ event }) => event.name.trim() !== '', target: 'renaming' },
          },
        },
        creating: {
          tags: ['busy'],
          invoke: {
            src: 'createMachines',
            input: ({ context, event }) => {
              assertEvent(event, 'list.create');
              return { projectId: context.projectId, machines: event.machines };
            },
            onDone: [
              {
                guard: ({ event }) => event.output.ok,
                target: 'idle',
                actions: [
                  assign(({ context, event }) => ({ machines: event.output.ok ? event.output.value.reduce(upsert, context.machines) : context.machines, error: null })),
                  emit(({ event }) => ({ type: 'list.created' as const, machines: event.output.ok ? event.output.value : [] })),
                ],
              },
              { target: 'idle', actions: assign(({ event }) => ({ error: event.output.ok ? null : event.output.error.message })) },
            ],
            onError: { target: 'idle', actions: assign({ error: "Couldn't create the machine." }) },
          },
        },
        renaming: {
          tags: ['busy'],
          invoke: {
            src: 'renameMachine',
            input: ({ event }) => {
              assertEvent(event, 'list.rename');
              return { machineId: event.machineId, name: event.name.trim() };
            },
            onDone: [
              {
                guard: ({ event }) => event.output.ok,
                target: 'idle',
                actions: assign(({ context, event }) => ({ machines: event.output.ok ? upsert(context.machines, event.output.value) : context.machines, error: null })),
              },
              { target: 'idle', actions: assign(({ event }) => ({ error: event.output.ok ? null : event.output.error.message })) },
            ],
            onError: { target: 'idle', actions: assign({ error: "Couldn't rename the machine." }) },
          },
        },
        deleting: {
          tags: ['busy'],
          invoke: {
            src: 'deleteMachine',
            input: ({ event }) => {
              assertEvent(event, 'list.delete');
              return { machineId: event.machineId };
            },
            onDone: [
              {
                guard: ({ event }) => event.output.ok,
                target: 'idle',
                actions: assign(({ context, event }) => ({ machines: context.machines.filter((m) => !event.output.ok || m.id !== event.output.value), error: null })),
              },
              { target: 'idle', actions: assign(({ event }) => ({ error: event.output.ok ? null : event.output.error.message })) },
            ],
            onError: { target: 'idle', actions: assign({ error: "Couldn't delete the machine." }) },
          },
        },
      },
    },
  },
});

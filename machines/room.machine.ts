import {
  assertEvent,
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  not,
  sendTo,
  setup,
  type SnapshotFrom,
} from 'xstate';
import type { Result, Role, RoomData } from '../src/lib/ports/room.ts';
import { applyChange, EMPTY_ROOM, mergeSnapshot } from '../src/lib/room-merge.ts';
import { invitesMachine } from './invites.machine.ts';
import { machineListMachine } from './machine-list.machine.ts';
import { openMachineMachine } from './open-machine.machine.ts';
import { notProvided, UNEXPECTED } from './shared.ts';

/**
 * One open project. The room's channel (`roomChannel`, a two-way callback actor) is
 * invoked for as long as the room is `open`; its facts drive the `sync` region:
 * subscribe first, buffer every change, load the snapshot, merge, then apply changes
 * live. When the channel drops, `resyncing` keeps showing what we had, buffers again and
 * reloads on rejoin, so nothing is lost or doubled (see src/lib/room-merge.ts).
 * The `admin` region runs one owner/editor request at a time; its outcome arrives as a
 * change on the channel like anyone else's.
 * The room is the parent of what lives in it: the project's `machineList` (invoked while
 * open), the owner's `invites` (region `invites`: only while this person is an owner)
 * and the machine open in it (region `machine`: `room.openMachine` invokes
 * `openMachine`, which tells presence which machine this person is on).
 */

import {
  canEditIn,
  isOwnerIn,
  lookingAtMachine,
  type RoomChannelCommand,
  type RoomChannelInput,
  type RoomContext,
  type RoomEvent,
  type RoomInput,
  type RoomTag,
} from './room-types.ts';

export * from './room-types.ts';

const JOIN_TIMEOUT = "Couldn't connect to this room's live updates. Check your connection and try again.";

const failureOf = (result: Result<unknown>): string | null => (result.ok ? null : result.error.message);

/** The admin requests an owner or editor starts, from `admin.idle` or `admin.failed`. */
const ADMIN_STARTS = {
  'room.rename': { target: 'renaming', actions: 'startAdmin' },
  'room.changeRole': { target: 'changingRole', actions: 'startAdmin' },
  'room.removeMember': { target: 'removing', actions: 'startAdmin' },
} as const;

/** How every admin request ends: a refusal or a throw in `admin.failed` with why, success in `admin.idle`. */
const ADMIN_OUTCOME = {
  onDone: [
    {
      guard: { type: 'refused', params: ({ event }: { event: { output: Result<null> } }) => event.output },
      target: 'failed',
      actions: {
        type: 'showAdminRefusal',
        params: ({ event }: { event: { output: Result<null> } }) => event.output,
      },
    },
    { target: 'idle', actions: 'finishAdmin' },
  ],
  onError: { target: 'failed', actions: 'showAdminUnexpected' },
} as const;

export const roomMachine = setup({
  types: {
    context: {} as RoomContext,
    events: {} as RoomEvent,
    input: {} as RoomInput,
    tags: {} as RoomTag,
    children: {} as {
      channel: 'roomChannel';
      loadSnapshot: 'loadSnapshot';
      renameProject: 'renameProject';
      changeRole: 'changeRole';
      removeMember: 'removeMember';
      machineList: 'machineList';
      invites: 'invites';
      openMachine: 'openMachine';
    },
  },
  actors: {
    // The bare child machines: the composition root provides them wired to real adapters.
    machineList: machineListMachine,
    invites: invitesMachine,
    openMachine: openMachineMachine,
    roomChannel: fromCallback<RoomChannelCommand, RoomChannelInput>(() => {
      throw notProvided('room', 'roomChannel');
    }),
    loadSnapshot: fromPromise<Result<RoomData>, { projectId: string }>(() =>
      Promise.reject(notProvided('room', 'loadSnapshot')),
    ),
    renameProject: fromPromise<Result<null>, { projectId: string; name: string }>(() =>
      Promise.reject(notProvided('room', 'renameProject')),
    ),
    changeRole: fromPromise<Result<null>, { projectId: string; userId: string; role: Role }>(() =>
      Promise.reject(notProvided('room', 'changeRole')),
    ),
    removeMember: fromPromise<Result<null>, { projectId: string; userId: string }>(() =>
      Promise.reject(notProvided('room', 'removeMember')),
    ),
  },
  delays: {
    joinTimeout: 15_000,
  },
  actions: {
    bufferChange: assign({
      buffer: ({ context, event }) => {
        assertEvent(event, 'change.received');
        return [...context.buffer, event.change];
      },
    }),
    clearBuffer: assign({ buffer: [] }),
    applyChange: assign(({ context, event }) => {
      assertEvent(event, 'change.received');
      const data = applyChange(context.data, event.change);
      return { data, wasMember: context.wasMember || data.members[context.userId] !== undefined };
    }),
    mergeSnapshot: assign(({ context }, result: Result<RoomData>) => {
      if (!result.ok) return {};
      const data = mergeSnapshot(result.value, context.buffer);
      return {
        data,
        buffer: [],
        error: null,
        wasMember: context.wasMember || data.members[context.userId] !== undefined,
      };
    }),
    showRefusal: assign({ error: (_, result: Result<unknown>) => failureOf(result) ?? UNEXPECTED }),
    showUnexpected: assign({ error: UNEXPECTED }),
    showJoinTimeout: assign({ error: JOIN_TIMEOUT }),
    clearError: assign({ error: null }),
    setPeers: assign({
      peers: ({ event }) => {
        assertEvent(event, 'presence.synced');
        return event.peers;
      },
    }),
    rememberLooking: assign({
      looking: ({ event }) => {
        assertEvent(event, 'room.look');
        return event.looking;
      },
    }),
    trackPresence: sendTo('channel', ({ context }): RoomChannelCommand => ({
      type: 'presence.track',
      looking: context.looking,
    })),
    rememberMachine: assign(({ event }) => {
      assertEvent(event, 'room.openMachine');
      return { machineId: event.machineId, looking: lookingAtMachine(event.machineId) };
    }),
    forgetMachine: assign({ machineId: null, looking: null }),
    /** The open machine hears whenever what this person may do could have changed. */
    tellEditable: enqueueActions(({ context, enqueue, self }) => {
      // No snapshot yet while a graph is only being traversed (xstate/graph): nothing to tell.
      const openMachine = (self.getSnapshot() as SnapshotFrom<typeof self> | undefined)?.children?.openMachine;
      if (openMachine) enqueue.sendTo(openMachine, { type: 'machine.editableChanged', canEdit: canEditIn(context) });
    }),
    explainRemoval: assign({
      removedReason: ({ context }) =>
        context.data.project === null
          ? 'This project was deleted.'
          : 'You were removed from this project. Ask an owner to invite you again.',
      peers: [],
    }),
    explainLostAccess: assign({
      removedReason: 'You no longer have access to this project: it was deleted, or you were removed.',
      peers: [],
    }),
    startAdmin: assign({
      adminError: null,
      adminTarget: ({ event }) =>
        event.type === 'room.changeRole' || event.type === 'room.removeMember' ? event.userId : null,
    }),
    showAdminRefusal: assign({
      adminError: (_, result: Result<unknown>) => failureOf(result) ?? UNEXPECTED,
      adminTarget: null,
    }),
    showAdminUnexpected: assign({ adminError: UNEXPECTED, adminTarget: null }),
    finishAdmin: assign({ adminTarget: null }),
    clearAdminError: assign({ adminError: null }),
  },
  guards: {
    refused: (_, result: Result<unknown>) => !result.ok,
    /** Presence is republished only when what this person looks at actually changes. */
    lookingChanged: ({ context, event }) => event.type === 'room.look' && event.looking !== context.looking,
    isOwner: ({ context }) => isOwnerIn(context),
    /** A member reloading after a drop finds the project hidden: access went while we were away. */
    accessGone: ({ context }, result: Result<unknown>) =>
      context.wasMember && !result.ok && result.error.code === 'not_found',
    /** Gone from the room: our membership was deleted, or the project itself. */
    lostAccess: ({ context }) =>
      context.data.project === null || (context.wasMember && context.data.members[context.userId] === undefined),
  },
}).createMachine({
  id: 'room',
  context: ({ input }) => ({
    ...input,
    data: EMPTY_ROOM,
    buffer: [],
    peers: [],
    looking: null,
    wasMember: false,
    error: null,
    adminError: null,
    adminTarget: null,
    removedReason: null,
    machineId: null,
  }),
  initial: 'open',
  states: {
    open: {
      type: 'parallel',
      invoke: [
        {
          id: 'channel',
          src: 'roomChannel',
          input: ({ context }) => ({ projectId: context.projectId, userId: context.userId, looking: context.looking }),
        },
        { id: 'machineList', src: 'machineList', input: ({ context }) => ({ projectId: context.projectId }) },
      ],
      on: {
        'presence.synced': { actions: 'setPeers' },
        'room.look': { guard: 'lookingChanged', actions: ['rememberLooking', 'trackPresence'] },
      },
      states: {
        sync: {
          initial: 'joining',
          states: {
            joining: {
              tags: ['pending'],
              entry: 'clearBuffer',
              on: { 'channel.subscribed': 'loading', 'change.received': { actions: 'bufferChange' } },
              after: { joinTimeout: { target: '#room.failed', actions: 'showJoinTimeout' } },
            },
            loading: {
              tags: ['pending'],
              invoke: {
                id: 'loadSnapshot',
                src: 'loadSnapshot',
                input: ({ context }) => ({ projectId: context.projectId }),
                onDone: [
                  {
                    guard: { type: 'accessGone', params: ({ event }) => event.output },
                    target: '#room.removed',
                    actions: 'explainLostAccess',
                  },
                  {
                    guard: { type: 'refused', params: ({ event }) => event.output },
                    target: '#room.failed',
                    actions: { type: 'showRefusal', params: ({ event }) => event.output },
                  },
                  { target: 'live', actions: { type: 'mergeSnapshot', params: ({ event }) => event.output } },
                ],
                onError: { target: '#room.failed', actions: 'showUnexpected' },
              },
              on: {
                'change.received': { actions: 'bufferChange' },
                // The snapshot may miss what happens while the channel is down: start over.
                'channel.errored': 'resyncing',
                'channel.closed': 'resyncing',
              },
            },
            live: {
              tags: ['live'],
              entry: 'tellEditable',
              always: { guard: 'lostAccess', target: '#room.removed', actions: 'explainRemoval' },
              on: {
                'change.received': { actions: ['applyChange', 'tellEditable'] },
                'channel.errored': 'resyncing',
                'channel.closed': 'resyncing',
              },
            },
            resyncing: {
              tags: ['resyncing'],
              entry: 'clearBuffer',
              on: { 'channel.subscribed': 'loading', 'change.received': { actions: 'bufferChange' } },
            },
          },
        },
        admin: {
          initial: 'idle',
          states: {
            idle: { on: ADMIN_STARTS },
            renaming: {
              tags: ['adminBusy'],
              invoke: {
                id: 'renameProject',
                src: 'renameProject',
                input: ({ context, event }) => {
                  assertEvent(event, 'room.rename');
                  return { projectId: context.projectId, name: event.name };
                },
                ...ADMIN_OUTCOME,
              },
            },
            changingRole: {
              tags: ['adminBusy'],
              invoke: {
                id: 'changeRole',
                src: 'changeRole',
                input: ({ context, event }) => {
                  assertEvent(event, 'room.changeRole');
                  return { projectId: context.projectId, userId: event.userId, role: event.role };
                },
                ...ADMIN_OUTCOME,
              },
            },
            removing: {
              tags: ['adminBusy'],
              invoke: {
                id: 'removeMember',
                src: 'removeMember',
                input: ({ context, event }) => {
                  assertEvent(event, 'room.removeMember');
                  return { projectId: context.projectId, userId: event.userId };
                },
                ...ADMIN_OUTCOME,
              },
            },
            failed: {
              tags: ['adminFailed'],
              on: { ...ADMIN_STARTS, 'room.dismissError': { target: 'idle', actions: 'clearAdminError' } },
            },
          },
        },
        invites: {
          initial: 'hidden',
          states: {
            hidden: { always: { guard: 'isOwner', target: 'shown' } },
            shown: {
              always: { guard: not('isOwner'), target: 'hidden' },
              invoke: { id: 'invites', src: 'invites', input: ({ context }) => ({ projectId: context.projectId }) },
            },
          },
        },
        machine: {
          initial: 'closed',
          states: {
            closed: {
              on: { 'room.openMachine': { target: 'open', actions: ['rememberMachine', 'trackPresence'] } },
            },
            open: {
              invoke: {
                id: 'openMachine',
                src: 'openMachine',
                input: ({ context }) => ({
                  machineId: context.machineId ?? '',
                  userId: context.userId,
                  canEdit: canEditIn(context),
                  document: context.document,
                }),
              },
              // One machine at a time, closed before the next opens (the view keys it by id): its
              // children's systemIds are free again only once the old one has stopped.
              on: { 'room.closeMachine': { target: 'closed', actions: ['forgetMachine', 'trackPresence'] } },
            },
          },
        },
      },
    },
    failed: {
      tags: ['failed'],
      on: { 'room.retry': { target: 'open', actions: 'clearError' } },
    },
    removed: {
      tags: ['removed'],
    },
  },
});

export type RoomMachine = typeof roomMachine;

import { assertEvent, not } from 'xstate';
import { EMPTY_ROOM } from '../../src/lib/room-merge.ts';

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
 * and the machine open in it (region `machine`: the `route` actor's `route.entered`
 * invokes `openMachine`, which tells presence which machine this person is on, and
 * `route.left` stops it: the machine open is the one the page's address names).
 */

import { output, request, requestFirst } from '../shared.ts';
import { canEditIn, canSendIn, roomSetup } from './room.setup.ts';

export * from './room.setup.ts';

/** The admin requests an owner or editor starts, from `admin.idle` or `admin.failed`. */
const ADMIN_STARTS = {
  'room.rename': { target: 'renaming', actions: 'startAdmin' },
  'room.changeRole': { target: 'changingRole', actions: 'startAdmin' },
  'room.removeMember': { target: 'removing', actions: 'startAdmin' },
} as const;

/** How every admin request ends: a refusal or a throw in `admin.failed` with why, success in `admin.idle`. */
const ADMIN_OUTCOME = request({
  refused: { target: 'failed', actions: { type: 'showAdminRefusal', params: output } },
  done: { target: 'idle', actions: 'finishAdmin' },
  threw: { target: 'failed', actions: 'showAdminUnexpected' },
});

export const roomMachine = roomSetup.createMachine({
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
        { id: 'route', src: 'route', input: ({ context }) => ({ projectId: context.projectId }) },
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
                ...requestFirst({
                  first: {
                    guard: { type: 'accessGone', params: output },
                    target: '#room.removed',
                    actions: 'explainLostAccess',
                  },
                  refused: { target: '#room.failed', actions: { type: 'showRefusal', params: output } },
                  done: { target: 'live', actions: { type: 'mergeSnapshot', params: output } },
                  threw: { target: '#room.failed', actions: 'showUnexpected' },
                }),
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
              on: { 'route.entered': { target: 'open', actions: ['rememberMachine', 'trackPresence'] } },
            },
            open: {
              invoke: {
                id: 'openMachine',
                src: 'openMachine',
                input: ({ context }) => ({
                  machineId: context.machineId ?? '',
                  userId: context.userId,
                  canEdit: canEditIn(context),
                  canSend: canSendIn(context),
                  document: context.document,
                }),
              },
              // One machine at a time, closed before the next opens (the route says `route.left`
              // first): its children's systemIds are free again only once the old one has stopped.
              on: { 'route.left': { target: 'closed', actions: ['forgetMachine', 'trackPresence'] } },
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

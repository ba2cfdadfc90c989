import { assertEvent, assign, enqueueActions, sendTo, setup, type SnapshotFrom } from 'xstate';
import { applyChange, mergeSnapshot } from '../../src/lib/room-merge.ts';
import { invitesMachine } from './invites.machine.ts';
import { machineListMachine } from './machine-list.machine.ts';
import { openMachineMachine } from '../open-machine/open-machine.machine.ts';
import { callbackNotProvided, requestNotProvided, UNEXPECTED } from '../shared.ts';
import type { Result, Role, RoomChange, RoomData, RoomFact, RoomPeer } from '../../src/lib/ports/room.ts';
import type { DocumentInput } from '../open-machine/document.machine.ts';

/**
 * The room machine's events, input, context and tags, the rules its views share, and its
 * `setup` (actors, actions, guards, delays); its chart is room.machine.ts.
 */

export type RoomIntent =
  | { type: 'room.retry' }
  | { type: 'room.look'; looking: string | null }
  | { type: 'room.rename'; name: string }
  | { type: 'room.changeRole'; userId: string; role: Role }
  | { type: 'room.removeMember'; userId: string }
  | { type: 'room.dismissError' };

/**
 * The page's route, as the `route` actor tells it: this project's machine page was entered
 * (its machine opens) or left (it closes). A move from one machine straight to another is
 * told as `route.left` then `route.entered`, two events, so the old open machine has
 * stopped (its children's systemIds free) before the next one starts.
 */
export type RouteFact = { type: 'route.entered'; machineId: string } | { type: 'route.left' };

export type RoomEvent = RoomFact | RouteFact | RoomIntent;

/** Which project's machine pages the `route` actor reports. */
export interface RouteInput {
  projectId: string;
}

/** Whose channel to open, and what this person is looking at when it joins. */
export interface RoomChannelInput {
  projectId: string;
  userId: string;
  looking: string | null;
}

/** What the machine tells its channel actor. */
export type RoomChannelCommand = { type: 'presence.track'; looking: string | null };

export interface RoomInput {
  projectId: string;
  userId: string;
  /** Settings for the document of a machine opened here (client id, op model, batch ids), from the composition root. */
  document: Omit<DocumentInput, 'machineId'>;
  /** A guest (anonymous) session: guests watch a simulation, never send to it. */
  guest?: boolean;
}

export interface RoomContext extends RoomInput {
  data: RoomData;
  /** Changes that arrived before the snapshot they must be merged into. */
  buffer: RoomChange[];
  peers: RoomPeer[];
  looking: string | null;
  /** Whether this user has been a member since the room opened (a public room's visitors never were). */
  wasMember: boolean;
  /** Why the room could not open or stopped, for people. */
  error: string | null;
  /** Why the last admin request failed. */
  adminError: string | null;
  /** Which member an admin request is working on, for a busy indicator. */
  adminTarget: string | null;
  removedReason: string | null;
  /** The machine open in the room, if any. */
  machineId: string | null;
}

export type RoomTag = 'pending' | 'live' | 'resyncing' | 'failed' | 'removed' | 'adminBusy' | 'adminFailed';

/** Presence's word for "on this machine"; views compare it with `lookingAtMachine(id)`. */
export const lookingAtMachine = (machineId: string): string => `machine:${machineId}`;

/** Owners and editors change content; viewers (and visitors of public rooms) only read. */
export const canEditIn = (context: Pick<RoomContext, 'data' | 'userId'>): boolean => {
  const role = context.data.members[context.userId]?.role;
  return role === 'owner' || role === 'editor';
};
/** Members of any role send simulation events; guests and a public room's visitors watch (the database says the same). */
export const canSendIn = (context: Pick<RoomContext, 'data' | 'userId' | 'guest'>): boolean =>
  !context.guest && context.data.members[context.userId] !== undefined;
export const isOwnerIn = (context: Pick<RoomContext, 'data' | 'userId'>): boolean =>
  context.data.members[context.userId]?.role === 'owner';

const JOIN_TIMEOUT = "Couldn't connect to this room's live updates. Check your connection and try again.";

const failureOf = (result: Result<unknown>): string | null => (result.ok ? null : result.error.message);

export const roomSetup = setup({
  types: {
    context: {} as RoomContext,
    events: {} as RoomEvent,
    input: {} as RoomInput,
    tags: {} as RoomTag,
    children: {} as {
      channel: 'roomChannel';
      route: 'route';
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
    roomChannel: callbackNotProvided<RoomChannelCommand, RoomChannelInput>('room', 'roomChannel'),
    route: callbackNotProvided<RouteFact, RouteInput>('room', 'route'),
    loadSnapshot: requestNotProvided<Result<RoomData>, { projectId: string }>('room', 'loadSnapshot'),
    renameProject: requestNotProvided<Result<null>, { projectId: string; name: string }>('room', 'renameProject'),
    changeRole: requestNotProvided<Result<null>, { projectId: string; userId: string; role: Role }>(
      'room',
      'changeRole',
    ),
    removeMember: requestNotProvided<Result<null>, { projectId: string; userId: string }>('room', 'removeMember'),
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
      assertEvent(event, 'route.entered');
      return { machineId: event.machineId, looking: lookingAtMachine(event.machineId) };
    }),
    forgetMachine: assign({ machineId: null, looking: null }),
    /** The open machine hears whenever what this person may do could have changed. */
    tellEditable: enqueueActions(({ context, enqueue, self }) => {
      // No snapshot yet while a graph is only being traversed (xstate/graph): nothing to tell.
      const openMachine = (self.getSnapshot() as SnapshotFrom<typeof self> | undefined)?.children?.openMachine;
      if (openMachine)
        enqueue.sendTo(openMachine, {
          type: 'machine.editableChanged',
          canEdit: canEditIn(context),
          canSend: canSendIn(context),
        });
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
});

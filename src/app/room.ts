import { fromCallback, fromEventObservable, fromPromise } from 'xstate';
import { connectionMachine } from '../../machines/account/connection.machine.ts';
import {
  roomMachine,
  type RoomChannelCommand,
  type RoomChannelInput,
  type RouteFact,
  type RouteInput,
} from '../../machines/room/room.machine.ts';
import { watchRoute } from '../features/navigation/router.ts';
import type { ConnectionPort, SocketEvent, SocketState } from '../lib/ports/realtime.ts';
import { invitesMachine } from '../../machines/room/invites.machine.ts';
import type { OpenMachineLogic } from './canvas.ts';
import type { MachineListLogic } from './machine-list.ts';
import type { Invite, InviteRequest, MembersPort, Result, Role, RoomData, RoomPort } from '../lib/ports/room.ts';

/** The room's children, each already wired. */
export interface RoomChildren {
  machineList: MachineListLogic;
  invites: InvitesLogic;
  openMachine: OpenMachineLogic;
}

/** The room machine wired to the room and members ports, with its children. */
export function roomLogic(room: RoomPort, members: MembersPort, children: RoomChildren) {
  return roomMachine.provide({
    actors: {
      ...children,
      // Two-way: the channel's facts go to the machine, presence commands come back.
      roomChannel: fromCallback<RoomChannelCommand, RoomChannelInput>(({ input, sendBack, receive }) => {
        const channel = room.open(input.projectId, input.userId);
        channel.track(input.looking);
        const subscription = channel.facts$.subscribe({
          next: (fact) => sendBack(fact),
          error: (error: unknown) =>
            sendBack({
              type: 'channel.errored',
              message: error instanceof Error ? error.message : 'The live connection failed',
            }),
        });
        receive((command) => channel.track(command.looking));
        return () => {
          subscription.unsubscribe();
          channel.close();
        };
      }),
      // The machine open in the room is the one the address names: entering its page opens
      // it, leaving closes it (a move between two machines closes the first, then opens the next).
      route: fromCallback<RouteFact, RouteInput>(({ input, sendBack }) => {
        let open: string | null = null;
        return watchRoute((route) => {
          const machineId = route.name === 'machine' && route.projectId === input.projectId ? route.machineId : null;
          if (machineId === open) return;
          if (open !== null) sendBack({ type: 'route.left' });
          open = machineId;
          if (machineId !== null) sendBack({ type: 'route.entered', machineId });
        });
      }),
      loadSnapshot: fromPromise<Result<RoomData>, { projectId: string }>(({ input }) =>
        room.loadSnapshot(input.projectId),
      ),
      renameProject: fromPromise<Result<null>, { projectId: string; name: string }>(({ input }) =>
        members.renameProject(input.projectId, input.name),
      ),
      changeRole: fromPromise<Result<null>, { projectId: string; userId: string; role: Role }>(({ input }) =>
        members.changeRole(input.projectId, input.userId, input.role),
      ),
      removeMember: fromPromise<Result<null>, { projectId: string; userId: string }>(({ input }) =>
        members.removeMember(input.projectId, input.userId),
      ),
    },
  });
}

export type RoomLogic = ReturnType<typeof roomLogic>;

/** The connection machine wired to the realtime socket's facts. */
export function connectionLogic(port: ConnectionPort) {
  return connectionMachine.provide({
    actors: {
      socketEvents: fromEventObservable<SocketEvent, void>(() => port.socketEvents$),
      reconnect: fromPromise<SocketState, void>(() => port.reconnect()),
    },
  });
}

export type ConnectionLogic = ReturnType<typeof connectionLogic>;

/** The invites machine wired to the members port. */
export function invitesLogic(members: MembersPort) {
  return invitesMachine.provide({
    actors: {
      listInvites: fromPromise<Result<Invite[]>, { projectId: string }>(({ input }) =>
        members.listInvites(input.projectId),
      ),
      createInvite: fromPromise<Result<Invite>, InviteRequest>(({ input }) => members.createInvite(input)),
      revokeInvite: fromPromise<Result<string>, { inviteId: string }>(async ({ input }) => {
        const result = await members.revokeInvite(input.inviteId);
        return result.ok ? { ok: true, value: input.inviteId } : result;
      }),
    },
  });
}

export type InvitesLogic = ReturnType<typeof invitesLogic>;

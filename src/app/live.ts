import { createActor, type ActorRefFrom } from 'xstate';
import { liveRoomAdapters } from '../adapters/supabase/live.ts';
import { machineListLogic, type MachineListLogic } from './machine-list.ts';
import { inspector } from './inspect.ts';
import { connectionLogic, invitesLogic, roomLogic, type InvitesLogic, type RoomLogic } from './room.ts';

/**
 * The composition of the live room: real adapters, created on first use so pages that
 * never open a room never touch the realtime socket.
 */

let adapters: ReturnType<typeof liveRoomAdapters> | null = null;
export const live = () => (adapters ??= liveRoomAdapters());

let room: RoomLogic | null = null;
export function liveRoomLogic(): RoomLogic {
  return (room ??= roomLogic(live().room, live().members));
}

let invites: InvitesLogic | null = null;
export function liveInvitesLogic(): InvitesLogic {
  return (invites ??= invitesLogic(live().members));
}

type ConnectionActor = ActorRefFrom<ReturnType<typeof connectionLogic>>;
let connection: ConnectionActor | null = null;

/** The app's one connection actor: the socket is one per client, so is its machine. */
export function liveConnectionActor(): ConnectionActor {
  connection ??= createActor(connectionLogic(live().connection), { inspect: inspector() }).start();
  return connection;
}

let machineList: MachineListLogic | null = null;
export function liveMachineListLogic(): MachineListLogic {
  return (machineList ??= machineListLogic(live().machines));
}

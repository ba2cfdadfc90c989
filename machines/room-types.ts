import type { Role, RoomChange, RoomData, RoomFact, RoomPeer } from '../src/lib/ports/room.ts';
import type { DocumentInput } from './document.machine.ts';

/** The room machine's events, input, context and tags, and the rules its views share (room.machine.ts). */

export type RoomIntent =
  | { type: 'room.retry' }
  | { type: 'room.look'; looking: string | null }
  | { type: 'room.openMachine'; machineId: string }
  | { type: 'room.closeMachine' }
  | { type: 'room.rename'; name: string }
  | { type: 'room.changeRole'; userId: string; role: Role }
  | { type: 'room.removeMember'; userId: string }
  | { type: 'room.dismissError' };

export type RoomEvent = RoomFact | RoomIntent;

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

import { createActorContext } from '@xstate/react';
import { useCallback } from 'react';
import type { SnapshotFrom } from 'xstate';
import { canEditIn, roomMachine, type RoomIntent } from '../../../machines/room/room.machine.ts';
import { PALETTE } from '../../lib/ports/profile.ts';
import type { Role } from '../../lib/ports/room.ts';
import { distinctColors } from '../../lib/room-colors.ts';

/**
 * The open room for the React tree. The composition root (src/app/) provides the machine,
 * wired to real adapters, with the project and user as input; views read it only through
 * the named hooks below, one slice each, with compare functions for lists. Its children
 * (machine list, invites, the open machine) are read through their own hook files.
 */
export const RoomContext = createActorContext(roomMachine);

type Snapshot = SnapshotFrom<typeof roomMachine>;

export interface MemberView {
  userId: string;
  name: string;
  color: string;
  avatarUrl: string | null;
  role: Role;
  online: boolean;
  looking: string | null;
  isMe: boolean;
  /** The project's primary owner, who cannot be demoted or removed. */
  isPrimaryOwner: boolean;
}

const ROLE_ORDER: Record<Role, number> = { owner: 0, editor: 1, viewer: 2 };

function membersOf(state: Snapshot): MemberView[] {
  const { data, peers, userId } = state.context;
  const online = new Map(peers.map((p) => [p.userId, p]));
  // No two people in a room share a colour (cursors, selections and avatars tell them apart).
  const colors = distinctColors(
    Object.values(data.members).map((m) => ({
      id: m.userId,
      color: data.profiles[m.userId]?.color ?? '#978365',
      joinedAt: m.joinedAt,
    })),
    PALETTE.map((p) => p.hex),
  );
  return Object.values(data.members)
    .map((member): MemberView => {
      const profile = data.profiles[member.userId];
      const peer = online.get(member.userId);
      return {
        userId: member.userId,
        name: profile?.displayName ?? 'Someone',
        color: colors.get(member.userId) ?? '#978365',
        avatarUrl: profile?.avatarUrl ?? null,
        role: member.role,
        online: peer !== undefined,
        looking: peer?.looking ?? null,
        isMe: member.userId === userId,
        isPrimaryOwner: data.project?.ownerId === member.userId,
      };
    })
    .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.name.localeCompare(b.name));
}

const sameMember = (a: MemberView, b: MemberView): boolean =>
  a.userId === b.userId &&
  a.name === b.name &&
  a.color === b.color &&
  a.avatarUrl === b.avatarUrl &&
  a.role === b.role &&
  a.online === b.online &&
  a.looking === b.looking &&
  a.isMe === b.isMe &&
  a.isPrimaryOwner === b.isPrimaryOwner;

const sameList = (a: MemberView[], b: MemberView[]): boolean =>
  a.length === b.length && a.every((m, i) => sameMember(m, b[i] as MemberView));

/** Everyone in the project with role, profile and presence. */
export function useMembers(): MemberView[] {
  return RoomContext.useSelector(membersOf, sameList);
}

/** Who is here now: members with at least one open connection to the room. */
export function usePeers(): MemberView[] {
  return RoomContext.useSelector((state) => membersOf(state).filter((m) => m.online), sameList);
}

export type RoomStatus = 'joining' | 'live' | 'resyncing' | 'failed' | 'removed';

export function useRoomStatus(): RoomStatus {
  return RoomContext.useSelector((state): RoomStatus => {
    if (state.hasTag('removed')) return 'removed';
    if (state.hasTag('failed')) return 'failed';
    if (state.hasTag('live')) return 'live';
    if (state.hasTag('resyncing')) return 'resyncing';
    return 'joining';
  });
}

export function useMyRole(): Role | null {
  return RoomContext.useSelector((state) => state.context.data.members[state.context.userId]?.role ?? null);
}

/** Owners and editors change content; viewers (and visitors of public rooms) only read. */
export function useCanEdit(): boolean {
  return RoomContext.useSelector((state) => canEditIn(state.context));
}

export function useIsOwner(): boolean {
  return RoomContext.useSelector((state) => state.context.data.members[state.context.userId]?.role === 'owner');
}

export function useProjectName(): string | null {
  return RoomContext.useSelector((state) => state.context.data.project?.name ?? null);
}

export function useProjectId(): string {
  return RoomContext.useSelector((state) => state.context.projectId);
}

export function useRoomError(): string | null {
  return RoomContext.useSelector((state) => state.context.error);
}

export function useRemovedReason(): string | null {
  return RoomContext.useSelector((state) => state.context.removedReason);
}

export function useAdminError(): string | null {
  return RoomContext.useSelector((state) => (state.hasTag('adminFailed') ? state.context.adminError : null));
}

export function useAdminBusy(): { busy: boolean; target: string | null } {
  return RoomContext.useSelector(
    (state) => ({ busy: state.hasTag('adminBusy'), target: state.context.adminTarget }),
    (a, b) => a.busy === b.busy && a.target === b.target,
  );
}

/** The room's children, for their hook files (machine list, invites, the open machine). */
export const useMachineListRef = () => RoomContext.useSelector((state) => state.children.machineList);
export const useInvitesRef = () => RoomContext.useSelector((state) => state.children.invites);
export const useOpenMachineRef = () => RoomContext.useSelector((state) => state.children.openMachine);

/** Views only send intents. */
export function useRoomSend(): (intent: RoomIntent) => void {
  const actor = RoomContext.useActorRef();
  return useCallback((intent: RoomIntent) => actor.send(intent), [actor]);
}

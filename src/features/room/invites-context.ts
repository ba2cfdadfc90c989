import { useCallback } from 'react';
import type { InvitesEvent } from '../../../machines/room/invites.machine.ts';
import type { Invite } from '../../lib/ports/room.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useInvitesRef } from './room-context.ts';

/** An owner's invites for the open project: a child of the room while this person owns it. */

const NONE: Invite[] = [];

const sameInvites = (a: Invite[], b: Invite[]) =>
  a.length === b.length && a.every((invite, i) => invite.id === b[i]?.id && invite.uses === b[i]?.uses);

export function useInvites(): Invite[] {
  return useChildSelector(useInvitesRef(), (state) => state.context.invites, NONE, sameInvites);
}

export function useCreatedInvite(): Invite | null {
  return useChildSelector(useInvitesRef(), (state) => state.context.created, null);
}

export type InvitesStatus = 'loading' | 'loadFailed' | 'busy' | 'ready';

export function useInvitesStatus(): InvitesStatus {
  return useChildSelector(
    useInvitesRef(),
    (state): InvitesStatus => {
      if (state.hasTag('loading')) return 'loading';
      if (state.hasTag('loadFailed')) return 'loadFailed';
      if (state.hasTag('busy')) return 'busy';
      return 'ready';
    },
    'loading',
  );
}

export function useInvitesError(): string | null {
  return useChildSelector(useInvitesRef(), (state) => state.context.error, null);
}

export function useInvitesSend(): (event: InvitesEvent) => void {
  const invites = useInvitesRef();
  return useCallback((event: InvitesEvent) => invites?.send(event), [invites]);
}

import { createActorContext } from '@xstate/react';
import { useCallback } from 'react';
import { invitesMachine, type InvitesEvent } from '../../../machines/invites.machine.ts';
import type { Invite } from '../../lib/ports/room.ts';

/** An owner's invites for the open project; provided by InvitesPanel. */
export const InvitesContext = createActorContext(invitesMachine);

const sameInvites = (a: Invite[], b: Invite[]) => a.length === b.length && a.every((invite, i) => invite.id === b[i]?.id && invite.uses === b[i]?.uses);

export function useInvites(): Invite[] {
  return InvitesContext.useSelector((state) => state.context.invites, sameInvites);
}

export function useCreatedInvite(): Invite | null {
  return InvitesContext.useSelector((state) => state.context.created);
}

export type InvitesStatus = 'loading' | 'loadFailed' | 'busy' | 'ready';

export function useInvitesStatus(): InvitesStatus {
  return InvitesContext.useSelector((state): InvitesStatus => {
    if (state.hasTag('loading')) return 'loading';
    if (state.hasTag('loadFailed')) return 'loadFailed';
    if (state.hasTag('busy')) return 'busy';
    return 'ready';
  });
}

export function useInvitesError(): string | null {
  return InvitesContext.useSelector((state) => state.context.error);
}

export function useInvitesSend(): (event: InvitesEvent) => void {
  const actor = InvitesContext.useActorRef();
  return useCallback((event: InvitesEvent) => actor.send(event), [actor]);
}

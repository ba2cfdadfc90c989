import { assertEvent, assign, setup } from 'xstate';
import type { Invite, InviteRequest, Result } from '../../src/lib/ports/room.ts';
import { output, request, requestNotProvided, UNEXPECTED } from '../shared.ts';

/**
 * An owner's invite links for one project: load the live ones, create one (role,
 * expiry), revoke one. A failed load offers a retry; a failed create or revoke keeps the
 * list and says why.
 */

export type InvitesEvent =
  | { type: 'invites.retry' }
  | { type: 'invites.create'; role: InviteRequest['role']; expiresInDays: number }
  | { type: 'invites.revoke'; inviteId: string }
  | { type: 'invites.dismissError' };

export interface InvitesContext {
  projectId: string;
  invites: Invite[];
  /** The link just created, offered for copying. */
  created: Invite | null;
  error: string | null;
}

export type InvitesTag = 'loading' | 'loadFailed' | 'busy' | 'ready';

export const invitesMachine = setup({
  types: {
    context: {} as InvitesContext,
    events: {} as InvitesEvent,
    input: {} as { projectId: string },
    tags: {} as InvitesTag,
  },
  actors: {
    listInvites: requestNotProvided<Result<Invite[]>, { projectId: string }>('invites', 'listInvites'),
    createInvite: requestNotProvided<Result<Invite>, InviteRequest>('invites', 'createInvite'),
    /** Answers the revoked invite's id. */
    revokeInvite: requestNotProvided<Result<string>, { inviteId: string }>('invites', 'revokeInvite'),
  },
  actions: {
    setInvites: assign((_, result: Result<Invite[]>) => (result.ok ? { invites: result.value, error: null } : {})),
    addInvite: assign(({ context }, result: Result<Invite>) =>
      result.ok ? { invites: [result.value, ...context.invites], created: result.value, error: null } : {},
    ),
    dropInvite: assign(({ context }, result: Result<string>) => {
      if (!result.ok) return {};
      const inviteId = result.value;
      return {
        invites: context.invites.filter((i) => i.id !== inviteId),
        created: context.created?.id === inviteId ? null : context.created,
        error: null,
      };
    }),
    showRefusal: assign({ error: (_, result: Result<unknown>) => (result.ok ? null : result.error.message) }),
    showUnexpected: assign({ error: UNEXPECTED }),
    clearError: assign({ error: null }),
  },
  guards: {
    refused: (_, result: Result<unknown>) => !result.ok,
  },
}).createMachine({
  id: 'invites',
  context: ({ input }) => ({ projectId: input.projectId, invites: [], created: null, error: null }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      entry: 'clearError',
      invoke: {
        id: 'listInvites',
        src: 'listInvites',
        input: ({ context }) => ({ projectId: context.projectId }),
        ...request({
          refused: { target: 'loadFailed', actions: { type: 'showRefusal', params: output } },
          done: { target: 'ready', actions: { type: 'setInvites', params: output } },
          threw: { target: 'loadFailed', actions: 'showUnexpected' },
        }),
      },
    },
    loadFailed: {
      tags: ['loadFailed'],
      on: { 'invites.retry': 'loading' },
    },
    ready: {
      tags: ['ready'],
      on: {
        'invites.create': 'creating',
        'invites.revoke': 'revoking',
        'invites.dismissError': { actions: 'clearError' },
      },
    },
    creating: {
      tags: ['busy'],
      entry: 'clearError',
      invoke: {
        id: 'createInvite',
        src: 'createInvite',
        input: ({ context, event }) => {
          assertEvent(event, 'invites.create');
          return { projectId: context.projectId, role: event.role, expiresInDays: event.expiresInDays, maxUses: null };
        },
        ...request({
          refused: { target: 'ready', actions: { type: 'showRefusal', params: output } },
          done: { target: 'ready', actions: { type: 'addInvite', params: output } },
          threw: { target: 'ready', actions: 'showUnexpected' },
        }),
      },
    },
    revoking: {
      tags: ['busy'],
      entry: 'clearError',
      invoke: {
        id: 'revokeInvite',
        src: 'revokeInvite',
        input: ({ event }) => {
          assertEvent(event, 'invites.revoke');
          return { inviteId: event.inviteId };
        },
        ...request({
          refused: { target: 'ready', actions: { type: 'showRefusal', params: output } },
          done: { target: 'ready', actions: { type: 'dropInvite', params: output } },
          threw: { target: 'ready', actions: 'showUnexpected' },
        }),
      },
    },
  },
});

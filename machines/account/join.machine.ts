import { assign, setup } from 'xstate';
import type { Failure, Result } from '../../src/lib/ports/room.ts';
import { output, request, requestNotProvided, UNEXPECTED } from '../shared.ts';

/**
 * Joining a project from a link: an invite (`/invite/:token`, through the accept-invite
 * function) or a share link (`/s/:token`, through join_shared_project). The view starts
 * it once someone is signed in (a guest is enough for a share link) and opens the room
 * when it is `joined`; a refusal keeps its code so the view can say what to do next.
 */

export interface JoinInput {
  kind: 'invite' | 'share';
  token: string;
}

export type JoinEvent = { type: 'join.retry' };

export interface JoinContext extends JoinInput {
  projectId: string | null;
  error: Failure | null;
}

export type JoinTag = 'joining' | 'failed' | 'joined';

export const joinMachine = setup({
  types: { context: {} as JoinContext, events: {} as JoinEvent, input: {} as JoinInput, tags: {} as JoinTag },
  actors: {
    join: requestNotProvided<Result<string>, JoinInput>('join', 'join'),
  },
  guards: {
    refused: (_, result: Result<string>) => !result.ok,
  },
  actions: {
    remember: assign((_, result: Result<string>) =>
      result.ok ? { projectId: result.value, error: null } : { error: result.error },
    ),
    showUnexpected: assign({ error: { code: 'unexpected', message: UNEXPECTED } }),
  },
}).createMachine({
  id: 'join',
  context: ({ input }) => ({ ...input, projectId: null, error: null }),
  initial: 'joining',
  states: {
    joining: {
      tags: ['joining'],
      invoke: {
        id: 'join',
        src: 'join',
        input: ({ context }) => ({ kind: context.kind, token: context.token }),
        ...request({
          refused: { target: 'failed', actions: { type: 'remember', params: output } },
          done: { target: 'joined', actions: { type: 'remember', params: output } },
          threw: { target: 'failed', actions: 'showUnexpected' },
        }),
      },
    },
    failed: {
      tags: ['failed'],
      on: { 'join.retry': 'joining' },
    },
    joined: { tags: ['joined'], type: 'final' },
  },
});

export type JoinMachine = typeof joinMachine;

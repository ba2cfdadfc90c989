import { Subject } from 'rxjs';
import { fromEventObservable } from 'xstate';
import {
  commentsMachine,
  type Answer,
  type CommentsRequest,
  type ReadMark,
} from '../../machines/open-machine/comments.machine.ts';
import type { Comment, CommentThread, CommentsResult, CommentsStreamEvent } from '../../src/lib/ports/comments.ts';
import { heldRequests } from './held-requests.ts';

/**
 * Rows for the comments machine's tests, and its actors faked: the list and each
 * request held until the test settles them, facts pushed on a subject.
 */

export const MACHINE = 'm-1';
export const ME = 'u-ada';
export const BO = 'u-bo';

export const thread = (id: string, over: Partial<CommentThread> = {}): CommentThread => ({
  id,
  machineId: MACHINE,
  anchor: { kind: 'state', value: 's_cart' },
  resolvedAt: null,
  resolvedBy: null,
  createdBy: BO,
  createdAt: '2026-11-27T10:00:00Z',
  updatedAt: '2026-11-27T10:00:00Z',
  ...over,
});

export const comment = (id: string, threadId: string, over: Partial<Comment> = {}): Comment => ({
  id,
  threadId,
  body: `body ${id}`,
  mentions: [],
  author: BO,
  createdAt: '2026-11-27T10:00:00Z',
  editedAt: null,
  deletedAt: null,
  ...over,
});

export const settle = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

export type CommentsActor = 'listComments' | 'send' | 'saveReadMark';

export function heldComments() {
  const facts = new Subject<CommentsStreamEvent>();
  const held = heldRequests<CommentsActor>(settle);
  const logic = commentsMachine.provide({
    actors: {
      commentEvents: fromEventObservable<CommentsStreamEvent, { machineId: string }>(() => facts.asObservable()),
      listComments: held.request<
        CommentsResult<{ threads: CommentThread[]; comments: Comment[] }>,
        { machineId: string }
      >('listComments'),
      send: held.request<CommentsResult<Answer>, CommentsRequest>('send'),
      saveReadMark: held.request<CommentsResult<null>, ReadMark>('saveReadMark'),
    },
  });
  return { logic, held, facts };
}

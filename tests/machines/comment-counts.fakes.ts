import { Subject } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { commentCountsMachine } from '../../machines/room/comment-counts.machine.ts';
import type { CommentCountsFact, CommentCountsResult, UnreadCounts } from '../../src/lib/ports/comment-counts.ts';
import { heldRequests } from './held-requests.ts';

/** A fake comment counts port: facts pushed on a subject, reads held until the test settles them. */
export function fakeCommentCounts() {
  const facts = new Subject<CommentCountsFact>();
  const held = heldRequests<'loadCounts'>(async () => {
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
  });
  const logic = commentCountsMachine.provide({
    actors: {
      moves: fromEventObservable<CommentCountsFact, { projectId: string }>(() => facts.asObservable()),
      loadCounts: held.request<CommentCountsResult<UnreadCounts>, { projectId: string }>('loadCounts'),
    },
  });
  return { logic, facts, held };
}

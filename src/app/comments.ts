import { fromEventObservable, fromPromise } from 'xstate';
import {
  commentsMachine,
  type Answer,
  type CommentsRequest,
  type ReadMark,
} from '../../machines/open-machine/comments.machine.ts';
import type { CommentsPort, CommentsResult } from '../lib/ports/comments.ts';

/** One request of the comments machine over the port. */
function send(port: CommentsPort, r: CommentsRequest): Promise<CommentsResult<Answer>> {
  const as =
    <K extends keyof Answer>(key: K) =>
    (result: CommentsResult<NonNullable<Answer[K]>>): CommentsResult<Answer> =>
      result.ok ? { ok: true, value: { [key]: result.value } } : result;
  switch (r.kind) {
    case 'start':
      return port.startThread(r);
    case 'reply':
      return port.reply(r).then(as('comment'));
    case 'edit':
      return port.edit(r).then(as('comment'));
    case 'delete':
      return port.remove(r.commentId).then(as('comment'));
    case 'resolve':
      return port.resolve(r.threadId, r.resolved).then(as('thread'));
  }
}

/** The comments machine's actors over the comments port. */
export function commentsLogic(port: CommentsPort) {
  return commentsMachine.provide({
    actors: {
      commentEvents: fromEventObservable(({ input }: { input: { machineId: string } }) =>
        port.changes$(input.machineId),
      ),
      listComments: fromPromise(({ input }: { input: { machineId: string } }) => port.list(input.machineId)),
      send: fromPromise(({ input }: { input: CommentsRequest }) => send(port, input)),
      saveReadMark: fromPromise(({ input }: { input: ReadMark }) =>
        port.markRead(input.machineId, input.userId, input.readAt),
      ),
    },
  });
}
export type CommentsLogic = ReturnType<typeof commentsLogic>;

import { assign, setup } from 'xstate';
import type { CommentCountsFact, CommentCountsResult, UnreadCounts } from '../../src/lib/ports/comment-counts.ts';
import { output, request, requestNotProvided, streamNotProvided, UNEXPECTED } from '../shared.ts';

/**
 * Unread comments per machine for this person, for the room's machine list, live. The
 * counts are read whole (the database counts, as the caller) once the live channels are
 * joined, and again whenever they say a machine's comments or this person's read mark
 * moved; a move during a read marks the answer stale, so one more read follows (a burst
 * of comments costs two reads, not one per comment). A failed read waits for the next
 * move, or `counts.retry`, and keeps the last counts shown.
 */

export type CommentCountsEvent = CommentCountsFact | { type: 'counts.retry' };

export interface CommentCountsContext {
  projectId: string;
  counts: UnreadCounts;
  /** Something moved while a read was out: its answer may predate it. */
  stale: boolean;
  error: string | null;
}

const NOTHING: UnreadCounts = {};

export const commentCountsMachine = setup({
  types: {
    input: {} as { projectId: string },
    context: {} as CommentCountsContext,
    events: {} as CommentCountsEvent,
    tags: {} as 'loading' | 'failed',
  },
  actors: {
    moves: streamNotProvided<CommentCountsFact, { projectId: string }>('comment counts', 'moves'),
    loadCounts: requestNotProvided<CommentCountsResult<UnreadCounts>, { projectId: string }>(
      'comment counts',
      'loadCounts',
    ),
  },
  guards: {
    refused: (_, answer: CommentCountsResult<unknown>) => !answer.ok,
    stale: ({ context }) => context.stale,
  },
  actions: {
    startRead: assign({ stale: false }),
    markStale: assign({ stale: true }),
    keepCounts: assign((_, answer: CommentCountsResult<UnreadCounts>) =>
      answer.ok ? { counts: answer.value, error: null } : {},
    ),
    showRefusal: assign((_, answer: CommentCountsResult<unknown>) => ({
      error: answer.ok ? null : answer.error.message,
    })),
    showUnexpected: assign({ error: UNEXPECTED }),
  },
}).createMachine({
  id: 'commentCounts',
  context: ({ input }) => ({ projectId: input.projectId, counts: NOTHING, stale: false, error: null }),
  invoke: {
    id: 'moves',
    src: 'moves',
    input: ({ context }) => ({ projectId: context.projectId }),
  },
  initial: 'joining',
  states: {
    // Nothing is read before the channels listen: a comment in between would be missed.
    joining: { on: { 'counts.subscribed': 'loading' } },
    loading: {
      tags: ['loading'],
      entry: 'startRead',
      on: { 'counts.moved': { actions: 'markStale' }, 'counts.subscribed': { actions: 'markStale' } },
      invoke: {
        id: 'loadCounts',
        src: 'loadCounts',
        input: ({ context }) => ({ projectId: context.projectId }),
        ...request({
          refused: { target: 'failed', actions: { type: 'showRefusal', params: output } },
          done: { target: 'read', actions: { type: 'keepCounts', params: output } },
          threw: { target: 'failed', actions: 'showUnexpected' },
        }),
      },
    },
    // An answer kept: read once more if something moved while it was out.
    read: { always: [{ guard: 'stale', target: 'loading' }, { target: 'ready' }] },
    ready: { on: { 'counts.moved': 'loading', 'counts.subscribed': 'loading' } },
    failed: {
      tags: ['failed'],
      on: { 'counts.moved': 'loading', 'counts.subscribed': 'loading', 'counts.retry': 'loading' },
    },
  },
});

export type CommentCountsMachine = typeof commentCountsMachine;

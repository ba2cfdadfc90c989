import { assign, setup } from 'xstate';
import type {
  Comment,
  CommentAnchor,
  CommentThread,
  CommentsResult,
  CommentsStreamEvent,
  EditRequest,
  ReplyRequest,
  StartThreadRequest,
} from '../../src/lib/ports/comments.ts';
import {
  byMachine,
  listRegion,
  output,
  request,
  requestNotProvided,
  requestValue,
  streamNotProvided,
  UNEXPECTED,
  value,
} from '../shared.ts';

/**
 * The comments of one open machine: its threads (each pinned to an anchor: a state, a
 * transition, a point, a timeline entry, a step) and their comments, read once and
 * followed live on the machine's private channel, read again after every (re)join. A
 * member (not a guest: `canComment`) starts a thread on an anchor (`comments.compose`
 * picks it, `comments.start` sends the first comment), replies, edits and deletes their
 * own comments, and resolves or reopens any thread; one request at a time. What the panel
 * shows is kept here too: open or resolved threads, only those mentioning this person,
 * and what counts as unread (comments by others after `seenAt`, the newest this person
 * has looked at: the list as first read, then whatever `comments.markRead` says). A thread
 * on the history (a timeline entry, a simulation step) is gone to with `comments.goToAnchor`,
 * which the page follows (`wentTo`) to open the Timeline or the Simulation there.
 * The open machine invokes it (`systemId: 'comments'`).
 */

export type CommentsIntent =
  /** Pick where the next thread hangs (the selection's state or transition, a point). */
  | { type: 'comments.compose'; anchor: CommentAnchor }
  | { type: 'comments.cancelCompose' }
  /** Comment mode: the next click on the empty canvas places a thread at that point (`comments.compose`). */
  | { type: 'comments.place' }
  | { type: 'comments.cancelPlace' }
  | { type: 'comments.start'; body: string; mentions: string[] }
  | { type: 'comments.reply'; threadId: string; body: string; mentions: string[] }
  | { type: 'comments.edit'; commentId: string; body: string; mentions: string[] }
  | { type: 'comments.delete'; commentId: string }
  | { type: 'comments.resolve'; threadId: string }
  | { type: 'comments.reopen'; threadId: string }
  | { type: 'comments.show'; show: CommentsShown }
  /** Bring a thread forward in the panel (its pin was clicked): shown whatever the filters, scrolled to and focused. */
  | { type: 'comments.focus'; threadId: string }
  /** Go to where a thread on the machine's history hangs (the page opens the Timeline or the Simulation there). */
  | { type: 'comments.goToAnchor'; anchor: CommentAnchor }
  | { type: 'comments.toggleMentionsMe' }
  /** This person has looked at every comment so far (the panel is open). */
  | { type: 'comments.markRead' }
  | { type: 'comments.dismissError' }
  /** The room's say on who comments: members, not guests. */
  | { type: 'comments.canCommentChanged'; canComment: boolean };

export type CommentsShown = 'open' | 'resolved';

export interface CommentsInput {
  machineId: string;
  userId: string;
  canComment?: boolean;
}

export interface CommentsContext {
  machineId: string;
  userId: string;
  canComment: boolean;
  /** Oldest first. */
  threads: CommentThread[];
  /** Oldest first, every thread's. */
  comments: Comment[];
  /** Where the thread being written hangs (null: none is being written). */
  composing: CommentAnchor | null;
  /** In comment mode: waiting for a point on the canvas. */
  placing: boolean;
  show: CommentsShown;
  mentionsMe: boolean;
  /** The thread brought forward last, and how many times one was (the panel scrolls to it on each). */
  focused: { threadId: string; times: number } | null;
  /** The history anchor gone to last (a timeline entry or a step), and how many times one was: the dock opens its panel on each. */
  wentTo: { anchor: CommentAnchor; times: number } | null;
  /** The newest comment time this person has looked at ('' before any; null until the list is first read). */
  seenAt: string | null;
  error: string | null;
}

/** What `send` does: start a thread, reply, edit or delete one's own comment, resolve or reopen a thread. */
export type CommentsRequest =
  | ({ kind: 'start' } & StartThreadRequest)
  | ({ kind: 'reply' } & ReplyRequest)
  | ({ kind: 'edit' } & EditRequest)
  | { kind: 'delete'; commentId: string }
  | { kind: 'resolve'; threadId: string; resolved: boolean };

/** The rows a request changed, as they are now. */
export interface Answer {
  thread?: CommentThread;
  comment?: Comment;
}

type Listed = CommentsResult<{ threads: CommentThread[]; comments: Comment[]; readAt?: string | null }>;

/** Where this person has read a machine's comments up to, to be kept (survives a reload). */
export interface ReadMark {
  machineId: string;
  userId: string;
  readAt: string;
}

/** When a thread or a comment last changed: a newer copy of a row replaces an older one, never the other way. */
const threadStamp = (t: CommentThread) => t.updatedAt;
const commentStamp = (c: Comment) => c.deletedAt ?? c.editedAt ?? c.createdAt;

function upsert<T extends { id: string; createdAt: string }>(rows: readonly T[], row: T, stamp: (r: T) => string): T[] {
  const at = rows.findIndex((r) => r.id === row.id);
  if (at < 0) return [...rows, row].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const had = rows[at] as T;
  return stamp(had) > stamp(row) ? [...rows] : rows.map((r, i) => (i === at ? row : r));
}

/** Rows read merged with rows already heard live (a row heard during the read is not lost). */
function merged<T extends { id: string; createdAt: string }>(
  read: readonly T[],
  heard: readonly T[],
  stamp: (r: T) => string,
): T[] {
  return heard.reduce<T[]>((rows, row) => upsert(rows, row, stamp), [...read]);
}

const newestComment = (comments: readonly Comment[]): string | null =>
  comments.reduce<string | null>((newest, c) => (newest === null || c.createdAt > newest ? c.createdAt : newest), null);

/** The request an intent makes (the anchor of a new thread is the one composed). */
function requestFor(context: CommentsContext, event: CommentsIntent | CommentsStreamEvent): CommentsRequest {
  const { machineId } = context;
  switch (event.type) {
    case 'comments.start':
      return { kind: 'start', machineId, anchor: context.composing as CommentAnchor, ...bodyOf(event) };
    case 'comments.reply':
      return { kind: 'reply', machineId, threadId: event.threadId, ...bodyOf(event) };
    case 'comments.edit':
      return { kind: 'edit', commentId: event.commentId, ...bodyOf(event) };
    case 'comments.delete':
      return { kind: 'delete', commentId: event.commentId };
    case 'comments.resolve':
    case 'comments.reopen':
      return { kind: 'resolve', threadId: event.threadId, resolved: event.type === 'comments.resolve' };
    default:
      throw new Error(`comments machine: ${event.type} makes no request`);
  }
}
const bodyOf = (e: { body: string; mentions: string[] }) => ({ body: e.body, mentions: e.mentions });

export const commentsMachine = setup({
  types: {
    input: {} as CommentsInput,
    context: {} as CommentsContext,
    events: {} as CommentsIntent | CommentsStreamEvent,
    tags: {} as 'loading' | 'busy' | 'failed',
  },
  actors: {
    commentEvents: streamNotProvided<CommentsStreamEvent, { machineId: string }>('comments', 'commentEvents'),
    listComments: requestNotProvided<Listed, { machineId: string }>('comments', 'listComments'),
    /** One request: start a thread, reply, edit or delete one's own comment, resolve or reopen. */
    send: requestNotProvided<CommentsResult<Answer>, CommentsRequest>('comments', 'send'),
    /** Keeps this person's read mark; a failure only means unread may show again after a reload. */
    saveReadMark: requestNotProvided<CommentsResult<null>, ReadMark>('comments', 'saveReadMark'),
  },
  actions: {
    keepList: assign(({ context }, output: Listed) => {
      if (!output.ok) return { error: output.error.message };
      const threads = merged(output.value.threads, context.threads, threadStamp);
      const comments = merged(output.value.comments, context.comments, commentStamp);
      // First read: the stored mark, or else what is there counts as seen ('' when nothing is: every comment after it is new).
      return { threads, comments, seenAt: context.seenAt ?? output.value.readAt ?? newestComment(comments) ?? '' };
    }),
    addThread: assign(({ context }, thread: CommentThread) => ({
      threads: upsert(context.threads, thread, threadStamp),
    })),
    addComment: assign(({ context }, comment: Comment) => ({
      comments: upsert(context.comments, comment, commentStamp),
    })),
    keepAnswer: assign(({ context }, value: Answer) => {
      const { thread, comment } = value;
      const mine = comment && thread ? comment.createdAt : null;
      return {
        threads: thread ? upsert(context.threads, thread, threadStamp) : context.threads,
        comments: comment ? upsert(context.comments, comment, commentStamp) : context.comments,
        // A thread started: the composer closes, and what this person wrote is read.
        ...(mine ? { composing: null, seenAt: context.seenAt && context.seenAt > mine ? context.seenAt : mine } : {}),
      };
    }),
    compose: assign((_, anchor: CommentAnchor) => ({ composing: anchor, placing: false, show: 'open' as const })),
    cancelCompose: assign({ composing: null, placing: false }),
    place: assign({ placing: true }),
    cancelPlace: assign({ placing: false }),
    show: assign((_, show: CommentsShown) => ({ show })),
    focus: assign(({ context }, threadId: string) => {
      const thread = context.threads.find((t) => t.id === threadId);
      return {
        focused: { threadId, times: (context.focused?.times ?? 0) + 1 },
        show: thread?.resolvedAt ? ('resolved' as const) : ('open' as const),
        mentionsMe: false,
      };
    }),
    goTo: assign(({ context }, anchor: CommentAnchor) => ({
      wentTo: { anchor, times: (context.wentTo?.times ?? 0) + 1 },
    })),
    toggleMentionsMe: assign(({ context }) => ({ mentionsMe: !context.mentionsMe })),
    markRead: assign(({ context }) => ({ seenAt: newestComment(context.comments) ?? context.seenAt })),
    setCanComment: assign((_, canComment: boolean) => ({ canComment })),
    clearError: assign({ error: null }),
    showRefusal: assign(({ context }, output: CommentsResult<unknown>) => ({
      error: output.ok ? context.error : output.error.message,
    })),
    showUnexpected: assign({ error: UNEXPECTED }),
    showListFailure: assign({ error: "Couldn't read the comments." }),
  },
  guards: {
    refused: (_, output: { ok: boolean }) => !output.ok,
    canComment: ({ context }) => context.canComment,
    knownThread: ({ context }, threadId: string) => context.threads.some((t) => t.id === threadId),
    /** An anchor the history holds: a timeline entry or a simulation step. */
    inHistory: (_, anchor: { kind: string }) => anchor.kind === 'timeline' || anchor.kind === 'step',
    composing: ({ context }) => context.canComment && context.composing !== null,
  },
}).createMachine({
  id: 'comments',
  context: ({ input }) => ({
    machineId: input.machineId,
    userId: input.userId,
    canComment: input.canComment ?? false,
    threads: [],
    comments: [],
    composing: null,
    placing: false,
    show: 'open',
    mentionsMe: false,
    focused: null,
    wentTo: null,
    seenAt: null,
    error: null,
  }),
  invoke: { id: 'commentEvents', src: 'commentEvents', input: ({ context }) => ({ machineId: context.machineId }) },
  on: {
    'comments.threadChanged': { actions: { type: 'addThread', params: ({ event }) => event.thread } },
    'comments.commentChanged': { actions: { type: 'addComment', params: ({ event }) => event.comment } },
    'comments.compose': { guard: 'canComment', actions: { type: 'compose', params: ({ event }) => event.anchor } },
    'comments.cancelCompose': { actions: 'cancelCompose' },
    'comments.place': { guard: 'canComment', actions: 'place' },
    'comments.cancelPlace': { actions: 'cancelPlace' },
    'comments.show': { actions: { type: 'show', params: ({ event }) => event.show } },
    'comments.focus': {
      guard: { type: 'knownThread', params: ({ event }) => event.threadId },
      actions: { type: 'focus', params: ({ event }) => event.threadId },
    },
    'comments.goToAnchor': {
      guard: { type: 'inHistory', params: ({ event }) => event.anchor },
      actions: { type: 'goTo', params: ({ event }) => event.anchor },
    },
    'comments.toggleMentionsMe': { actions: 'toggleMentionsMe' },
    'comments.dismissError': { actions: 'clearError' },
    'comments.canCommentChanged': {
      actions: [{ type: 'setCanComment', params: ({ event }) => event.canComment }, 'cancelCompose'],
    },
  },
  type: 'parallel',
  states: {
    list: listRegion({
      read: {
        id: 'listComments',
        src: 'listComments',
        input: byMachine,
        ...requestValue({
          done: { target: 'live', actions: { type: 'keepList', params: output } },
          threw: { target: 'live', actions: 'showListFailure' },
        }),
      },
      again: { 'comments.subscribed': 'loading' },
      states: {},
    }),
    requests: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'comments.start': { guard: 'composing', target: 'sending', actions: 'clearError' },
            'comments.reply': { guard: 'canComment', target: 'sending', actions: 'clearError' },
            'comments.edit': { guard: 'canComment', target: 'sending', actions: 'clearError' },
            'comments.delete': { guard: 'canComment', target: 'sending', actions: 'clearError' },
            'comments.resolve': { guard: 'canComment', target: 'sending', actions: 'clearError' },
            'comments.reopen': { guard: 'canComment', target: 'sending', actions: 'clearError' },
          },
        },
        sending: {
          tags: ['busy'],
          invoke: {
            id: 'send',
            src: 'send',
            input: ({ context, event }) => requestFor(context, event),
            ...request({
              refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
              done: { target: 'idle', actions: { type: 'keepAnswer', params: value } },
              threw: { target: 'idle', actions: 'showUnexpected' },
            }),
          },
        },
      },
    },
    // What this person has read is kept, so unread survives a reload: one write at a time,
    // a newer mark restarting it (marks only move forward in the database).
    reads: {
      initial: 'idle',
      on: { 'comments.markRead': { target: '.keeping', reenter: true, actions: 'markRead' } },
      states: {
        idle: {},
        keeping: {
          invoke: {
            id: 'saveReadMark',
            src: 'saveReadMark',
            input: ({ context }) => ({
              machineId: context.machineId,
              userId: context.userId,
              readAt: context.seenAt ?? '',
            }),
            ...requestValue({ done: 'idle', threw: 'idle' }),
          },
        },
      },
    },
  },
});

export type CommentsMachine = typeof commentsMachine;

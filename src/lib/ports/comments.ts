import type { Observable } from 'rxjs';

/**
 * The comments port: a machine's comment threads, each pinned to an anchor, and their
 * comments. Nothing here names Supabase; src/adapters/supabase/comments.ts implements it.
 * Calls resolve to results, never throw; a refusal says why in words.
 */

export type AnchorKind = 'state' | 'transition' | 'point' | 'timeline' | 'step';

/** Where a thread hangs: a state's path, a transition's id, a point "x,y", a timeline entry's or a step's seq. */
export interface CommentAnchor {
  kind: AnchorKind;
  value: string;
}

export interface CommentThread {
  id: string;
  machineId: string;
  anchor: CommentAnchor;
  resolvedAt: string | null;
  resolvedBy: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Comment {
  id: string;
  threadId: string;
  /** Empty once deleted. */
  body: string;
  /** User ids of the members mentioned. */
  mentions: string[];
  author: string | null;
  createdAt: string;
  editedAt: string | null;
  deletedAt: string | null;
}

export interface CommentsError {
  code: string;
  message: string;
}

export type CommentsResult<T> = { ok: true; value: T } | { ok: false; error: CommentsError };

/** The longest comment the server takes. */
export const MAX_COMMENT_LENGTH = 10_000;

export interface StartThreadRequest {
  machineId: string;
  anchor: CommentAnchor;
  body: string;
  mentions: string[];
}

export interface ReplyRequest {
  machineId: string;
  threadId: string;
  body: string;
  mentions: string[];
}

export interface EditRequest {
  commentId: string;
  body: string;
  mentions: string[];
}

/** Facts from the machine's comments as they change, past tense. */
export type CommentsStreamEvent =
  | { type: 'comments.threadChanged'; thread: CommentThread }
  | { type: 'comments.commentChanged'; comment: Comment }
  | { type: 'comments.subscribed' }
  | { type: 'comments.lost'; message: string };

export interface CommentsPort {
  /**
   * The machine's threads and comments, oldest first, and where this person has read them
   * up to (`readAt`: their stored mark; null or absent when they have none).
   */
  list(
    machineId: string,
  ): Promise<CommentsResult<{ threads: CommentThread[]; comments: Comment[]; readAt?: string | null }>>;
  /** Stores where this person has read the machine's comments up to (a mark only moves forward). */
  markRead(machineId: string, userId: string, readAt: string): Promise<CommentsResult<null>>;
  startThread(request: StartThreadRequest): Promise<CommentsResult<{ thread: CommentThread; comment: Comment }>>;
  reply(request: ReplyRequest): Promise<CommentsResult<Comment>>;
  edit(request: EditRequest): Promise<CommentsResult<Comment>>;
  remove(commentId: string): Promise<CommentsResult<Comment>>;
  /** Resolves (true) or reopens (false) a thread. */
  resolve(threadId: string, resolved: boolean): Promise<CommentsResult<CommentThread>>;
  changes$(machineId: string): Observable<CommentsStreamEvent>;
}

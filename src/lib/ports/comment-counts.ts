import type { Observable } from 'rxjs';

/**
 * Unread comments per machine for the signed-in person, for the room's machine list:
 * threads with a comment by someone else after their read mark (or since they joined),
 * and how many of those comments mention them. Machines they may not read never appear;
 * a machine with nothing unread is absent. Implemented by
 * src/adapters/supabase/comment-counts.ts (supabase/migrations/20261127000900_comment_unread_counts.sql).
 * Calls resolve to results, never throw.
 */

export interface UnreadCount {
  threads: number;
  mentions: number;
}

/** Unread by machine id. */
export type UnreadCounts = Readonly<Record<string, UnreadCount>>;

export type CommentCountsResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/** Facts, past tense: a machine's comments or this person's read mark moved; the live channels joined or dropped. */
export type CommentCountsFact =
  { type: 'counts.moved'; machineId: string } | { type: 'counts.subscribed' } | { type: 'counts.lost' };

export interface CommentCountsPort {
  counts(projectId: string): Promise<CommentCountsResult<UnreadCounts>>;
  /** When the counts may have moved: comments in the project, and the signed-in person's own read marks. */
  moves$(projectId: string): Observable<CommentCountsFact>;
}

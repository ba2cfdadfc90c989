import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, type Observable, of } from 'rxjs';
import type {
  AnchorKind,
  Comment,
  CommentThread,
  CommentsError,
  CommentsPort,
  CommentsResult,
  CommentsStreamEvent,
} from '../../lib/ports/comments.ts';
import type { Database, Tables } from './database.types.ts';
import { openChannel } from './realtime.ts';

/**
 * Comments over Supabase: rows of `comment_threads` and `comments` (RLS decides: the
 * machine's readers read, members who are not guests write, authors edit their own), a
 * thread started with its first comment by `start_comment_thread`, and the private
 * channel `comments:<machine>` on which a trigger broadcasts every new or changed row
 * (events `thread` and `comment`). Rows become the port's records here; a broadcast that
 * is not a row of the right shape is dropped.
 */

type Client = SupabaseClient<Database>;
type ThreadRow = Tables<'comment_threads'>;
type CommentRow = Tables<'comments'>;
type Broadcast = Record<string, unknown>;

const KINDS: readonly AnchorKind[] = ['state', 'transition', 'point', 'timeline', 'step'];
const isKind = (v: unknown): v is AnchorKind => KINDS.includes(v as AnchorKind);
const str = (v: unknown): v is string => typeof v === 'string';
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';

export const toThread = (row: ThreadRow): CommentThread => ({
  id: row.id,
  machineId: row.machine_id,
  anchor: { kind: isKind(row.anchor_kind) ? row.anchor_kind : 'point', value: row.anchor },
  resolvedAt: row.resolved_at,
  resolvedBy: row.resolved_by,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toComment = (row: CommentRow): Comment => ({
  id: row.id,
  threadId: row.thread_id,
  body: row.body,
  mentions: row.mentions,
  author: row.author,
  createdAt: row.created_at,
  editedAt: row.edited_at,
  deletedAt: row.deleted_at,
});

/** A broadcast thread row, checked. */
export function threadOf(p: Broadcast): CommentThread | null {
  const ok =
    str(p.id) &&
    str(p.machine_id) &&
    isKind(p.anchor_kind) &&
    str(p.anchor) &&
    strOrNull(p.resolved_at) &&
    strOrNull(p.resolved_by) &&
    strOrNull(p.created_by) &&
    str(p.created_at) &&
    str(p.updated_at);
  return ok ? toThread(p as unknown as ThreadRow) : null;
}

/** A broadcast comment row, checked. */
export function commentOf(p: Broadcast): Comment | null {
  const ok =
    str(p.id) &&
    str(p.thread_id) &&
    str(p.body) &&
    Array.isArray(p.mentions) &&
    p.mentions.every(str) &&
    strOrNull(p.author) &&
    str(p.created_at) &&
    strOrNull(p.edited_at) &&
    strOrNull(p.deleted_at);
  return ok ? toComment(p as unknown as CommentRow) : null;
}

/** By SQLSTATE: the server's own words for bad input and limits, a plain sentence for the rest. */
export function describeCommentsError(error: unknown, action: string): CommentsError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: string; message?: string };
  if (error instanceof TypeError || !e.code)
    return { code: 'network', message: `Couldn't ${action}: can't reach the server.` };
  if (e.code === '42501')
    return { code: 'forbidden', message: `You can't ${action}: only members of the project comment.` };
  if (e.code === 'PGRST116' || e.code === 'PT404')
    return { code: 'not_found', message: `Couldn't ${action}: it no longer exists or you no longer have access.` };
  if (e.code === 'PT429') return { code: 'rate_limited', message: `Couldn't ${action}: ${e.message ?? 'too many'}.` };
  if (e.code === '22023' || e.code === 'PT409')
    return { code: 'invalid', message: `Couldn't ${action}: ${e.message ?? 'not accepted'}.` };
  return { code: 'unknown', message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` };
}

async function attempt<T>(action: string, call: () => Promise<CommentsResult<T>>): Promise<CommentsResult<T>> {
  try {
    return await call();
  } catch (error) {
    return { ok: false, error: describeCommentsError(error, action) };
  }
}

const fail = (error: unknown, action: string) => ({ ok: false as const, error: describeCommentsError(error, action) });

export function createCommentsAdapter(client: Client): CommentsPort {
  const updateComment = (action: string, id: string, changes: Database['public']['Tables']['comments']['Update']) =>
    attempt(action, async () => {
      const { data, error } = await client.from('comments').update(changes).eq('id', id).select('*').single();
      return error ? fail(error, action) : { ok: true, value: toComment(data) };
    });

  /** When the signed-in person joined the machine's project, or null (a guest, or unknown: then what is there counts as read). */
  const memberSince = async (machineId: string): Promise<string | null> => {
    const user = (await client.auth.getSession()).data.session?.user.id;
    const machine = await client.from('machines').select('project_id').eq('id', machineId).maybeSingle();
    if (!user || machine.error || !machine.data) return null;
    const member = await client
      .from('project_members')
      .select('created_at')
      .eq('project_id', machine.data.project_id)
      .eq('user_id', user)
      .maybeSingle();
    return member.error || !member.data ? null : new Date(member.data.created_at).toISOString();
  };
  return {
    list: (machineId) =>
      attempt('read the comments', async () => {
        const threads = await client
          .from('comment_threads')
          .select('*')
          .eq('machine_id', machineId)
          .order('created_at')
          .limit(5000);
        if (threads.error) return fail(threads.error, 'read the comments');
        const comments = await client
          .from('comments')
          .select('*')
          .eq('machine_id', machineId)
          .order('created_at')
          .limit(20000);
        if (comments.error) return fail(comments.error, 'read the comments');
        // This person's own read mark (RLS shows no one else's); without one, what came after
        // they joined the project is unread, as the room counts it (comment_unread_counts).
        const mark = await client.from('comment_reads').select('read_at').eq('machine_id', machineId).maybeSingle();
        const readAt = mark.error
          ? null
          : mark.data
            ? new Date(mark.data.read_at).toISOString()
            : await memberSince(machineId);
        return {
          ok: true,
          value: { threads: threads.data.map(toThread), comments: comments.data.map(toComment), readAt },
        };
      }),

    markRead: (machineId, userId, readAt) =>
      attempt('keep what you have read', async () => {
        const { error } = await client
          .from('comment_reads')
          .upsert({ user_id: userId, machine_id: machineId, read_at: readAt }, { onConflict: 'user_id,machine_id' });
        return error ? fail(error, 'keep what you have read') : { ok: true, value: null };
      }),

    startThread: (r) =>
      attempt('start the thread', async () => {
        const { data, error } = await client.rpc('start_comment_thread', {
          p_machine: r.machineId,
          p_anchor_kind: r.anchor.kind,
          p_anchor: r.anchor.value,
          p_body: r.body,
          p_mentions: r.mentions,
        });
        if (error) return fail(error, 'start the thread');
        const answer = data as unknown as { thread: ThreadRow; comment: CommentRow };
        return { ok: true, value: { thread: toThread(answer.thread), comment: toComment(answer.comment) } };
      }),

    reply: (r) =>
      attempt('reply', async () => {
        const thread = await client.from('comment_threads').select('project_id').eq('id', r.threadId).single();
        if (thread.error) return fail(thread.error, 'reply');
        const user = (await client.auth.getSession()).data.session?.user.id ?? null;
        const { data, error } = await client
          .from('comments')
          .insert({
            thread_id: r.threadId,
            project_id: thread.data.project_id,
            machine_id: r.machineId,
            body: r.body,
            mentions: r.mentions,
            author: user,
          })
          .select('*')
          .single();
        return error ? fail(error, 'reply') : { ok: true, value: toComment(data) };
      }),

    edit: (r) => updateComment('edit the comment', r.commentId, { body: r.body, mentions: r.mentions }),

    remove: (commentId) => updateComment('delete the comment', commentId, { deleted_at: new Date().toISOString() }),

    resolve: (threadId, resolved) => {
      const action = resolved ? 'resolve the thread' : 'reopen the thread';
      return attempt(action, async () => {
        const { data, error } = await client
          .from('comment_threads')
          .update({ resolved_at: resolved ? new Date().toISOString() : null })
          .eq('id', threadId)
          .select('*')
          .single();
        return error ? fail(error, action) : { ok: true, value: toThread(data) };
      });
    },

    changes$: (machineId) => commentEvents(client, machineId),
  };
}

/** A machine's threads and comments as they change, from its private channel. */
export function commentEvents(client: Client, machineId: string): Observable<CommentsStreamEvent> {
  return openChannel<never, Broadcast, never>(client, {
    topic: `comments:${machineId}`,
    private: true,
    broadcast: ['thread', 'comment'],
  }).facts$.pipe(
    concatMap((fact): Observable<CommentsStreamEvent> => {
      if (fact.type === 'status') {
        if (fact.status === 'subscribed') return of({ type: 'comments.subscribed' });
        return of({ type: 'comments.lost', message: fact.message ?? 'The live connection closed' });
      }
      if (fact.type !== 'broadcast') return EMPTY;
      if (fact.event === 'thread') {
        const thread = threadOf(fact.payload);
        return thread ? of({ type: 'comments.threadChanged', thread }) : EMPTY;
      }
      const comment = commentOf(fact.payload);
      return comment ? of({ type: 'comments.commentChanged', comment }) : EMPTY;
    }),
  );
}

import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, defer, EMPTY, from, merge, mergeMap, type Observable, of } from 'rxjs';
import type {
  CommentCountsFact,
  CommentCountsPort,
  CommentCountsResult,
  UnreadCounts,
} from '../../lib/ports/comment-counts.ts';
import type { Database } from './database.types.ts';
import { openChannel } from './realtime.ts';

/**
 * Unread comment counts over Supabase: the `comment_unread_counts` function (run as the
 * caller, so RLS decides which machines it counts), and two private channels whose
 * broadcasts name only a machine: `comment-activity:<project>` (a comment written, edited
 * or deleted) and `comment-reads:<user>` (this person's read mark moved).
 */

type Client = SupabaseClient<Database>;
type Broadcast = Record<string, unknown>;

export function createCommentCountsAdapter(client: Client): CommentCountsPort {
  return {
    counts: async (projectId): Promise<CommentCountsResult<UnreadCounts>> => {
      try {
        const { data, error } = await client.rpc('comment_unread_counts', { p_project: projectId });
        if (error)
          return {
            ok: false,
            error: { code: error.code, message: `Couldn't count unread comments: ${error.message}` },
          };
        const counts: Record<string, { threads: number; mentions: number }> = {};
        for (const row of data) counts[row.machine_id] = { threads: row.threads, mentions: row.mentions };
        return { ok: true, value: counts };
      } catch {
        return {
          ok: false,
          error: { code: 'network', message: "Couldn't count unread comments: can't reach the server." },
        };
      }
    },
    moves$: (projectId) => countMoves(client, projectId),
  };
}

/** One private channel's broadcasts as facts: `moved` for a payload naming a machine. */
function movesOn(client: Client, topic: string, event: string): Observable<CommentCountsFact> {
  return openChannel<never, Broadcast, never>(client, { topic, private: true, broadcast: [event] }).facts$.pipe(
    concatMap((fact): Observable<CommentCountsFact> => {
      if (fact.type === 'status')
        return of(fact.status === 'subscribed' ? { type: 'counts.subscribed' } : { type: 'counts.lost' });
      if (fact.type !== 'broadcast') return EMPTY;
      const machineId = fact.payload.machine_id;
      return typeof machineId === 'string' ? of({ type: 'counts.moved', machineId }) : EMPTY;
    }),
  );
}

/** The project's comment activity, and the signed-in person's read marks (the session says who). */
export function countMoves(client: Client, projectId: string): Observable<CommentCountsFact> {
  const mine = defer(() => from(client.auth.getSession())).pipe(
    mergeMap(({ data }) => {
      const userId = data.session?.user.id;
      return userId ? movesOn(client, `comment-reads:${userId}`, 'read') : EMPTY;
    }),
  );
  return merge(movesOn(client, `comment-activity:${projectId}`, 'comment'), mine);
}

import type pg from 'pg';

/** A stored broadcast resent on join, as hosted's `config.broadcast.replay` does. */
export interface StoredMessage {
  id: string;
  event: string | null;
  payload: unknown;
}

/** Hosted never replays more than this many messages. */
const HARD_LIMIT = 25;

/**
 * The latest private broadcast rows of `topic` inserted since `since` (ms since the
 * epoch), oldest first. Runs as the backend: the caller has already passed the read
 * policy for the topic, which is what hosted requires too.
 */
export async function storedMessages(
  pool: pg.Pool,
  topic: string,
  since: number,
  limit: number,
): Promise<StoredMessage[]> {
  const rows = await pool.query<StoredMessage>(
    `select id::text as id, event, payload from realtime.messages
      where topic = $1 and private is true and extension = 'broadcast'
        -- inserted_at is a timestamp without time zone written by now() in the server's zone
        and inserted_at >= (to_timestamp($2::float8 / 1000) at time zone current_setting('TimeZone'))
        and payload is not null
      order by inserted_at desc
      limit $3`,
    [topic, since, Math.max(1, Math.min(limit, HARD_LIMIT))],
  );
  return rows.rows.reverse();
}

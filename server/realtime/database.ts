import pg from 'pg';
import type { Hub } from './hub.ts';

/**
 * Broadcast from the database: a dedicated LISTEN connection receives each committed
 * broadcast row of realtime.messages (see platform.sql), reads it back when it was too
 * big for the notification, and fans it out like hosted does: to the topic's private
 * or public members, with the row id as metadata.
 */

export interface DatabaseBroadcasts {
  /** Resolves once LISTEN is active. */
  ready: Promise<void>;
  close(): Promise<void>;
}

interface Row {
  id: string;
  topic?: string;
  event?: string | null;
  private?: boolean | null;
  payload?: unknown;
}

const CHANNEL = 'realtime_broadcast_messages';
/** A user's project access changed (see the private_project_channels migration); payload: their id. */
const ACCESS_CHANNEL = 'realtime_access_changed';
const RECENT_IDS = 5000;
/** How far before a lost connection a catch-up looks (transactions commit after they start). */
const CATCH_UP_MARGIN_MS = 5000;

export function listenForDatabaseBroadcasts(options: {
  databaseUrl: string;
  pool: pg.Pool;
  hub: Hub;
  maxPayloadBytes: number;
  log: (line: string) => void;
  /** Called with a user id when that user's access changed (channels to re-check). */
  onAccessChanged?: (userId: string) => void;
}): DatabaseBroadcasts {
  const { pool, hub, log } = options;
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  // Rows are delivered in commit order even when one must be read back first.
  let queue: Promise<void> = Promise.resolve();
  // Recently delivered row ids: a catch-up after a reconnect must not repeat them.
  const delivered = new Set<string>();
  let lostAt: number | null = null;

  const fanOut = (row: Row): void => {
    if (
      typeof row.topic !== 'string' ||
      typeof row.event !== 'string' ||
      row.payload === null ||
      row.payload === undefined
    )
      return;
    if (delivered.has(row.id)) return;
    delivered.add(row.id);
    if (delivered.size > RECENT_IDS) delivered.delete(delivered.values().next().value as string);
    const text = JSON.stringify(row.payload);
    const body = Buffer.from(text, 'utf8');
    if (body.length > options.maxPayloadBytes) {
      log(`[realtime] UnableToBroadcastChanges: payload_size_exceeded on ${row.topic}`);
      return;
    }
    hub.broadcast(row.topic, row.private === true, {
      kind: 'user',
      user: { event: row.event, encoding: 'json', body, json: row.payload, metadata: { id: row.id } },
    });
  };

  const onNotification = (message: pg.Notification): void => {
    if (message.channel === ACCESS_CHANNEL) {
      const userId = (message.payload ?? '').trim();
      // In line with broadcasts, so a removal notice is fanned out before the channel ends.
      if (userId !== '') queue = queue.then(() => options.onAccessChanged?.(userId));
      return;
    }
    let row: Row;
    try {
      row = JSON.parse(message.payload ?? '') as Row;
    } catch {
      log(`[realtime] unreadable broadcast notification: ${message.payload ?? ''}`);
      return;
    }
    queue = queue.then(async () => {
      try {
        if (row.topic === undefined) {
          const found = await pool.query<Row>(
            'select id::text as id, topic, event, private, payload from realtime.messages where id = $1',
            [row.id],
          );
          if (found.rows[0]) fanOut(found.rows[0]);
        } else {
          fanOut(row);
        }
      } catch (error) {
        log(`[realtime] database broadcast failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  };

  /** Delivers broadcast rows committed while the listener was away (NOTIFY does not queue them). */
  const catchUp = (since: number): void => {
    queue = queue.then(async () => {
      try {
        const rows = await pool.query<Row>(
          `select id::text as id, topic, event, private, payload from realtime.messages
            where extension = 'broadcast'
              and inserted_at >= (to_timestamp($1::float8 / 1000) at time zone current_setting('TimeZone'))
            order by inserted_at, id limit 10000`,
          [since],
        );
        for (const row of rows.rows) fanOut(row);
      } catch (error) {
        log(`[realtime] broadcast catch-up failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.databaseUrl });
    next.on('notification', onNotification);
    next.on('error', (error) => {
      log(`[realtime] broadcast listener lost its connection: ${error.message}`);
      reconnect(next);
    });
    next.on('end', () => reconnect(next));
    await next.connect();
    await next.query(`listen ${ACCESS_CHANNEL}`);
    await next.query(`listen ${CHANNEL}`);
    client = next;
    if (lostAt !== null) {
      catchUp(lostAt - CATCH_UP_MARGIN_MS);
      lostAt = null;
    }
  };

  const scheduleConnect = (): void => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      if (closed) return;
      connect().catch((error: unknown) => {
        log(`[realtime] broadcast listener reconnect failed: ${String(error)}`);
        scheduleConnect();
      });
    }, 1000);
  };

  const reconnect = (dead: pg.Client): void => {
    if (closed || client !== dead) return;
    client = null;
    lostAt = Date.now();
    dead.end().catch(() => undefined);
    scheduleConnect();
  };

  return {
    ready: connect(),
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
      await queue;
    },
  };
}

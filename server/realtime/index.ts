import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { sendJson, type RequestContext } from '../gateway/http.ts';
import type { BackendDeps, BackendService } from '../service.ts';
import type { ChannelContext } from './channel.ts';
import type { ChangeFeed } from './changes/types.ts';
import { Connection } from './connection.ts';
import { listenForDatabaseBroadcasts, type DatabaseBroadcasts } from './database.ts';
import { createChangeFeed } from './changes/index.ts';
import { idleChangeFeed } from './feed.ts';
import { batchBroadcast, singleBroadcast, type BroadcastApi } from './http.ts';
import { Hub } from './hub.ts';
import { realtimeOptions, type RealtimeOptions } from './options.ts';
import { isVsn } from './protocol.ts';

export interface RealtimeOverrides {
  options?: Partial<RealtimeOptions>;
  /** A change feed to use instead of loading server/realtime/changes (tests). */
  feed?: ChangeFeed;
}

export interface RealtimeService extends BackendService {
  /** Open sockets, for benches and tests. */
  readonly connectionCount: number;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** Refuses an upgrade with a small JSON body, as Phoenix's socket error handler does. */
function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function upgradeError(ctx: RequestContext): string {
  switch (ctx.authError?.reason) {
    case 'expired':
      return 'Token has expired';
    case 'malformed':
      return 'The token provided is not a valid JWT';
    default:
      return 'Failed to validate JWT signature';
  }
}

/**
 * Supabase Realtime at /realtime/v1: the Phoenix socket (vsn 1.0.0 and 2.0.0) with
 * broadcast, presence, private channels and postgres changes, the REST broadcast API,
 * and broadcast from the database.
 */
export function createRealtimeService(deps: BackendDeps, overrides: RealtimeOverrides = {}): RealtimeService {
  const options = realtimeOptions(overrides.options);
  const log = deps.log;
  const hub = new Hub(log);
  const connections = new Set<Connection>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes, perMessageDeflate: false });
  let bindingIds = 0;
  let feed: ChangeFeed = overrides.feed ?? idleChangeFeed();
  let database: DatabaseBroadcasts | null = null;
  let sweep: NodeJS.Timeout | null = null;
  let pruner: NodeJS.Timeout | null = null;
  let stopping = false;

  const channelContext: ChannelContext = {
    pool: deps.pool,
    jwtSecret: deps.config.jwtSecret,
    hub,
    get feed() {
      return feed;
    },
    options,
    log,
    nextBindingId: () => (bindingIds = (bindingIds % 2_000_000_000) + 1),
  };
  const api: BroadcastApi = {
    pool: deps.pool,
    hub,
    maxPayloadBytes: options.maxPayloadBytes,
    maxBodyBytes: deps.config.maxBodyBytes,
    log,
  };

  return {
    prefix: '/realtime/v1',

    get connectionCount() {
      return connections.size;
    },

    async start() {
      if (overrides.feed) {
        await feed.start();
      } else {
        // A feed that cannot start (no replication) must not take broadcast and presence down.
        try {
          feed = createChangeFeed(deps);
          await feed.start();
        } catch (error) {
          log(
            `[realtime] postgres changes feed unavailable, running without it: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          );
          await feed.close().catch(() => undefined);
          feed = idleChangeFeed();
        }
      }
      database = listenForDatabaseBroadcasts({
        databaseUrl: deps.adminDatabaseUrl,
        pool: deps.pool,
        hub,
        maxPayloadBytes: options.maxPayloadBytes,
        log,
        onAccessChanged: (userId) => {
          for (const connection of connections) connection.recheckAccess(userId);
        },
      });
      await database.ready;
      const every = Math.max(50, Math.min(5000, Math.floor(options.idleTimeoutMs / 4)));
      sweep = setInterval(() => {
        const now = Date.now();
        for (const connection of connections) connection.closeIfIdle(now);
      }, every);
      sweep.unref();
      // Hosted keeps stored broadcasts for 72 hours; so do we, pruning hourly.
      const prune = (): void => {
        deps.pool
          .query(`delete from realtime.messages where inserted_at < now() - interval '72 hours'`)
          .catch((error: unknown) => log(`[realtime] pruning realtime.messages failed: ${String(error)}`));
      };
      prune();
      pruner = setInterval(prune, 60 * 60_000);
      pruner.unref();
    },

    async close() {
      stopping = true;
      if (sweep) clearInterval(sweep);
      if (pruner) clearInterval(pruner);
      for (const connection of [...connections]) connection.terminate(1001, 'Server shutting down');
      wss.close();
      await database?.close();
      await feed.close();
    },

    async handle(req, res, ctx) {
      const parts = ctx.path.split('/');
      if (req.method === 'POST' && ctx.path === '/api/broadcast') return batchBroadcast(api, req, res, ctx);
      if (
        req.method === 'POST' &&
        parts.length === 6 &&
        parts[1] === 'api' &&
        parts[2] === 'broadcast' &&
        parts[4] === 'events'
      ) {
        let topic: string;
        let event: string;
        try {
          topic = decodeURIComponent(parts[3]!);
          event = decodeURIComponent(parts[5]!);
        } catch {
          sendJson(res, 400, { message: 'Malformed topic or event in the URL' });
          return;
        }
        return singleBroadcast(api, req, res, ctx, topic, event);
      }
      if (ctx.path === '/websocket') {
        sendJson(res, 400, { message: 'This endpoint only accepts WebSocket upgrades' });
        return;
      }
      sendJson(res, 404, { message: 'not found' });
      return Promise.resolve();
    },

    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: RequestContext) {
      if (ctx.path !== '/websocket') return refuseUpgrade(socket, 404, 'Not Found');
      if (stopping) return refuseUpgrade(socket, 503, 'Realtime is restarting, please standby');
      const vsn = ctx.url.searchParams.get('vsn') ?? '1.0.0';
      if (!isVsn(vsn)) return refuseUpgrade(socket, 403, `Unsupported protocol version ${vsn}`);
      if (ctx.authError) return refuseUpgrade(socket, 401, upgradeError(ctx));
      wss.handleUpgrade(req, socket, head, (ws) => {
        const raw = 'cork' in socket && 'uncork' in socket ? socket : null;
        const connection = new Connection(ws, vsn, ctx.token, channelContext, (c) => connections.delete(c), raw);
        connections.add(connection);
      });
    },
  };
}

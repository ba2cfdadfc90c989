import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { defaultConfig } from '../../server/config.ts';
import { createPool } from '../../server/postgres/pool.ts';
import { createChangeFeed, type ChangeFeedOptions } from '../../server/realtime/changes/index.ts';
import type { ChangeBinding, ChangeData, ChangeSubscriberIdentity } from '../../server/realtime/changes/types.ts';
import type { BackendDeps } from '../../server/service.ts';
import { adminDb, backendInfo } from '../setup/clients.ts';

/** A feed of its own on the test backend's database, as the realtime service builds one. */
export async function startFeed(options: ChangeFeedOptions = {}) {
  const info = backendInfo();
  const pool: pg.Pool = createPool(info.adminDatabaseUrl, 10);
  const logs: string[] = [];
  const deps: BackendDeps = {
    config: defaultConfig({ jwtSecret: info.jwtSecret }),
    pool,
    databaseUrl: info.databaseUrl,
    adminDatabaseUrl: info.adminDatabaseUrl,
    anonKey: info.anonKey,
    serviceRoleKey: info.serviceRoleKey,
    apiUrl: () => info.url,
    log: (line) => logs.push(line),
  };
  const feed = createChangeFeed(deps, options);
  await feed.start();
  await feed.ready();
  return {
    feed,
    pool,
    logs,
    async stop() {
      await feed.close();
      await pool.end();
    },
  };
}

export type Feed = Awaited<ReturnType<typeof startFeed>>;

/**
 * A test file's fixture: a superuser connection that runs each `arrange` SQL text in turn
 * (the file's own tables, policies and grants), adds the `publish` tables to the
 * supabase_realtime publication where not there yet (files share one database, so the
 * tables may already be in it), and a feed of its own started after that.
 */
export async function openFeed(
  publish: readonly string[],
  ...arrange: string[]
): Promise<{ db: pg.Client; ctx: Feed }> {
  const db = await adminDb();
  try {
    for (const sql of arrange) await db.query(sql);
    for (const t of publish) {
      const has = await db.query(
        `select 1 from pg_publication_tables where pubname = 'supabase_realtime' and tablename = $1`,
        [t],
      );
      if (!has.rowCount) await db.query(`alter publication supabase_realtime add table public.${t}`);
    }
    return { db, ctx: await startFeed() };
  } catch (error) {
    // The caller never gets the connection to close.
    await db.end();
    throw error;
  }
}

/** Undoes openFeed; either part may be missing when its beforeAll failed half-way. */
export async function closeFeed(ctx: Feed | undefined, db: pg.Client | undefined): Promise<void> {
  await ctx?.stop();
  await db?.end();
}

export interface Received {
  ids: number[];
  data: ChangeData;
}

/** Collects what one subscriber receives. */
export function collector() {
  const received: Received[] = [];
  return {
    received,
    deliver: (ids: number[], data: ChangeData) => received.push({ ids, data }),
    /**
     * Waits until `predicate` holds for something received. The bound is generous: it only
     * turns a change that never comes into a failure, a slow machine must not.
     */
    async waitFor(predicate: (r: Received) => boolean, timeoutMs = 15_000): Promise<Received> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find(predicate);
        if (hit) return hit;
        if (Date.now() > deadline)
          throw new Error(`nothing matching arrived; got ${JSON.stringify(received.map((r) => r.data.type))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

/** Lets the stream catch up: a marker row through the feed proves earlier changes were routed. */
export async function settle(
  feed: ReturnType<typeof createChangeFeed>,
  db: pg.Client,
  markerTable: string,
): Promise<void> {
  const sink = collector();
  const sub = feed.subscribe(
    serviceIdentity(),
    [{ id: 1, event: 'INSERT', schema: 'public', table: markerTable }],
    sink.deliver,
  );
  const mark = randomUUID();
  await db.query(`insert into public.${markerTable} (note) values ($1)`, [mark]);
  await sink.waitFor((r) => r.data.record?.note === mark);
  sub.unsubscribe();
}

export function serviceIdentity(): ChangeSubscriberIdentity {
  return { role: 'service_role', claims: { role: 'service_role' } };
}

export function anonIdentity(): ChangeSubscriberIdentity {
  return { role: 'anon', claims: { role: 'anon' } };
}

export function userIdentity(sub: string): ChangeSubscriberIdentity {
  return { role: 'authenticated', claims: { sub, role: 'authenticated', aud: 'authenticated' } };
}

let nextId = 1000;
export function binding(partial: Partial<ChangeBinding> & { table?: string }): ChangeBinding {
  return { id: nextId++, event: '*', schema: 'public', ...partial };
}

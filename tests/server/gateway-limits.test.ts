import fs from 'node:fs/promises';
import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBackend, type Backend } from '../../server/backend.ts';
import { adminDb, backendInfo, signedInClient } from '../setup/clients.ts';

/**
 * One user cannot stall everyone: a cap on each caller's requests in flight (the rest wait,
 * a full line is refused with 429), a request rate, and a cap on rows per write (413 in
 * PostgREST's error shape, before any SQL runs). And bytes that are not UTF-8 are refused
 * as PostgREST refuses them, not stored as U+FFFD. A second gateway over the test database
 * runs with small limits so each one is reached with a handful of requests.
 */

let gateway: Backend;
let dataDir: string;

beforeAll(async () => {
  await fs.mkdir(path.resolve('tests/.tmp'), { recursive: true });
  dataDir = await fs.mkdtemp(path.resolve('tests/.tmp/limits-'));
  const db = await adminDb();
  await db.query(`create table if not exists public.limit_items (id int primary key, name text not null default '');
    grant select, insert, update, delete on public.limit_items to anon, authenticated, service_role;
    insert into public.limit_items (id) values (1) on conflict do nothing;
    notify pgrst, 'reload schema';`);
  await db.end();
  gateway = await startBackend({
    externalDatabaseUrl: backendInfo().databaseUrl,
    port: 0,
    dataDir,
    logRequests: false,
    log: () => undefined,
    maxWriteRows: 100,
    callerLimits: { maxInFlight: 2, maxQueued: 1, perSecond: 0.001, burst: 30 },
  });
});

afterAll(async () => {
  await gateway?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function userOnGateway(tag: string) {
  const person = await signedInClient(tag);
  const client = createClient(gateway.url, gateway.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: `Bearer ${person.session.access_token}` } },
    realtime: { transport: WebSocket as never },
  });
  return { ...person, client };
}

describe('per-user limits at the gateway', () => {
  it('holds a user to 2 requests in flight and 1 waiting, refuses the next with 429, and others are served meanwhile', async () => {
    const a = await userOnGateway('limits-a');
    const b = await userOnGateway('limits-b');
    const db = await adminDb();
    try {
      await db.query('begin');
      await db.query('select * from public.limit_items where id = 1 for update');
      // Two updates block on the row lock, a third waits at the gateway.
      const held = [1, 2, 3].map((n) =>
        a.client
          .from('limit_items')
          .update({ name: `a${n}` })
          .eq('id', 1),
      );
      const pending = held.map((q) => q.then((r) => r));
      // A second connection watches (pg_stat_activity is a snapshot within a transaction).
      const watcher = await adminDb();
      for (;;) {
        const waiting = await watcher.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%limit_items%'`,
        );
        if (waiting.rows[0]!.n >= 2) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await watcher.end();
      const refused = await a.client.from('limit_items').select('id').eq('id', 1);
      expect(refused.status).toBe(429);
      expect(refused.error).toMatchObject({ code: 'over_request_rate_limit' });
      // Someone else is not held up by A.
      const other = await b.client.from('limit_items').select('id').eq('id', 1);
      expect(other.status).toBe(200);
      await db.query('commit');
      const results = await Promise.all(pending);
      expect(results.map((r) => r.status)).toEqual([204, 204, 204]);
    } finally {
      await db.query('rollback').catch(() => undefined);
      await db.end();
    }
  });

  it('refuses a user past their request rate with 429 and Retry-After', async () => {
    const c = await userOnGateway('limits-c');
    const token = (await c.client.auth.getSession()).data.session?.access_token ?? c.session.access_token;
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 31; i++) {
      const res = await fetch(`${gateway.url}/rest/v1/limit_items?select=id&id=eq.1`, {
        headers: { apikey: gateway.anonKey, authorization: `Bearer ${token}` },
      });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});

describe('rows per write', () => {
  it('refuses an insert of more rows than the cap with a 413 in PostgREST shape and writes nothing', async () => {
    const d = await userOnGateway('limits-d');
    const rows = Array.from({ length: 101 }, (_, i) => ({ id: 10_000 + i }));
    const capped = await d.client.from('limit_items').insert(rows);
    expect(capped.status).toBe(413);
    expect(capped.error).toMatchObject({ code: 'PGRST413', message: 'Too many rows in one request: 101, at most 100' });
    expect(capped.error).toHaveProperty('hint');
    expect(capped.error).toHaveProperty('details');
    const stored = await d.client.from('limit_items').select('id').gte('id', 10_000);
    expect(stored.data).toEqual([]);
    const fits = await d.client.from('limit_items').insert(rows.slice(0, 100));
    expect(fits.status).toBe(201);
  });
});

describe('request bodies', () => {
  it('answers invalid UTF-8 in a JSON body with 400 PGRST102 and stores nothing', async () => {
    const { url, serviceRoleKey } = backendInfo();
    const body = Buffer.concat([
      Buffer.from('{"id": 777, "name": "bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await fetch(`${url}/rest/v1/limit_items`, {
      method: 'POST',
      headers: {
        apikey: serviceRoleKey,
        authorization: `Bearer ${serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'PGRST102' });
    const db = await adminDb();
    const stored = await db.query('select 1 from public.limit_items where id = 777');
    await db.end();
    expect(stored.rowCount).toBe(0);
  });
});

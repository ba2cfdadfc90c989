import { randomUUID } from 'node:crypto';
import type { RealtimeChannel, RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { adminDb, anonClient, backendInfo, type AnyClient } from '../setup/clients.ts';

// postgres_changes end to end: the real supabase-js client, through the gateway, the
// channel layer and the changes feed, on both protocol versions.
type Row = { id: number; owner: string | null; body: string; is_public: boolean; n: number; meta: unknown; at: string };
type Payload = RealtimePostgresChangesPayload<Row>;

let db: pg.Client;
const open: { client: AnyClient; channel: RealtimeChannel }[] = [];

beforeAll(async () => {
  db = await adminDb();
  await db.query(`
    create table if not exists public.rce_notes (
      id bigserial primary key, owner uuid, body text, is_public bool not null default false,
      n int4, meta jsonb, at timestamptz default now()
    );
    alter table public.rce_notes enable row level security;
    drop policy if exists rce_read on public.rce_notes;
    create policy rce_read on public.rce_notes for select to authenticated using (owner = auth.uid() or is_public);
    drop policy if exists rce_anon on public.rce_notes;
    create policy rce_anon on public.rce_notes for select to anon using (is_public);
    grant select on public.rce_notes to anon, authenticated, service_role;
  `);
  const has = await db.query(
    `select 1 from pg_publication_tables where pubname = 'supabase_realtime' and tablename = 'rce_notes'`,
  );
  if (!has.rowCount) await db.query(`alter publication supabase_realtime add table public.rce_notes`);
});

afterAll(async () => {
  for (const { client, channel } of open) {
    await client.removeChannel(channel).catch(() => undefined);
    await Promise.resolve(client.realtime.disconnect()).catch(() => undefined);
  }
  await db?.end();
});

function tokenFor(sub: string): string {
  return signJwt(
    { sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 },
    backendInfo().jwtSecret,
  );
}

/** A client listening to rce_notes; resolves once subscribed, with what it receives. */
async function listen(vsn: '1.0.0' | '2.0.0', sub: string | null, filter?: string) {
  const client = anonClient({ vsn });
  if (sub) await client.realtime.setAuth(tokenFor(sub));
  const received: Payload[] = [];
  const channel = client
    .channel(`rce-${randomUUID()}`)
    .on(
      'postgres_changes',
      { event: '*', schema: 'public', table: 'rce_notes', ...(filter ? { filter } : {}) },
      (p: Payload) => {
        received.push(p);
      },
    );
  // SUBSCRIBED is the join's reply; changes flow once the server says "Subscribed to
  // PostgreSQL" (as on hosted), so a row written before that may never be sent.
  const streaming = new Promise<void>((resolve, reject) => {
    channel.on('system', {}, (m: { extension?: string; status?: string; message?: string }) => {
      if (m.extension !== 'postgres_changes') return;
      if (m.status === 'ok') resolve();
      else reject(new Error(m.message ?? 'postgres_changes refused'));
    });
  });
  streaming.catch(() => undefined); // awaited below, once the join has answered
  open.push({ client, channel });
  await new Promise<void>((resolve, reject) => {
    channel.subscribe((status, error) => {
      const state = `${status}`;
      if (state === 'SUBSCRIBED') resolve();
      else if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT') reject(error ?? new Error(state));
    });
  });
  await streaming;
  // Generous bound: only a change that never comes may fail the test, not a loaded machine.
  const waitFor = async (predicate: (p: Payload) => boolean, timeoutMs = 15_000): Promise<Payload> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = received.find(predicate);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching change; got ${JSON.stringify(received)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return { client, channel, received, waitFor };
}

const newId = (p: Payload) => (p.new as Partial<Row>).id;
const oldId = (p: Payload) => (p.old as Partial<Row>).id;

async function insert(owner: string | null, body: string, isPublic = false, n = 0): Promise<number> {
  const r = await db.query<{ id: string }>(
    `insert into public.rce_notes (owner, body, is_public, n, meta) values ($1, $2, $3, $4, '{"k":[1,2]}') returning id`,
    [owner, body, isPublic, n],
  );
  return Number(r.rows[0]!.id);
}

describe.each(['1.0.0', '2.0.0'] as const)('postgres_changes through supabase-js, vsn %s', (vsn) => {
  it('delivers INSERT, UPDATE and DELETE with typed records to the row owner', async () => {
    const alice = randomUUID();
    const a = await listen(vsn, alice);
    // Each step waits for its change: the RLS check reads the row as it is when the change
    // is routed, so a row deleted at once would (as on hosted) hide its earlier changes.
    const id = await insert(alice, 'hello', false, 5);
    const ins = await a.waitFor((p) => p.eventType === 'INSERT' && newId(p) === id);
    await db.query(`update public.rce_notes set body = 'edited', n = 6 where id = $1`, [id]);
    const upd = await a.waitFor((p) => p.eventType === 'UPDATE' && newId(p) === id);
    await db.query(`delete from public.rce_notes where id = $1`, [id]);
    const del = await a.waitFor((p) => p.eventType === 'DELETE' && oldId(p) === id);
    expect(ins).toMatchObject({ schema: 'public', table: 'rce_notes', errors: null, old: {} });
    expect(ins.new).toMatchObject({ id, owner: alice, body: 'hello', is_public: false, n: 5, meta: { k: [1, 2] } });
    expect((ins.new as Row).at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
    expect(ins.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(upd.new).toMatchObject({ id, body: 'edited', n: 6 });
    expect(upd.old).toEqual({ id });
    // RLS on: the deleted row cannot be checked, so only its key travels.
    expect(del.old).toEqual({ id });
    expect(del.new).toEqual({});
  });

  it('never shows user B a row only user A may select', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const b = await listen(vsn, bob);
    const secret = await insert(alice, 'alice only');
    const marker = await insert(null, 'public marker', true);
    await b.waitFor((p) => newId(p) === marker);
    expect(b.received.filter((p) => newId(p) === secret)).toEqual([]);
  });

  it('applies a filter, and serves anon only what anon may select', async () => {
    const anon = await listen(vsn, null, 'n=gt.100');
    await insert(null, 'public small', true, 7);
    const big = await insert(null, 'public big', true, 1000);
    await insert(randomUUID(), 'private big', false, 2000);
    const last = await insert(null, 'public last', true, 5000);
    await anon.waitFor((p) => newId(p) === last);
    expect(anon.received.filter((p) => p.eventType === 'INSERT').map(newId)).toEqual([big, last]);
  });

  it('authorises later changes with the new token after setAuth', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const viewer = await listen(vsn, bob);
    await viewer.client.realtime.setAuth(tokenFor(alice));
    // The token travels on the socket ahead of the marker's change; wait until it is in use.
    // Probes written before the switch never arrive, so keep writing them; any one that
    // arrives (however late) proves the switch.
    const probes = new Set<number | undefined>();
    const deadline = Date.now() + 20_000;
    let seen = false;
    while (!seen && Date.now() < deadline) {
      probes.add(await insert(alice, 'probe'));
      seen = await viewer
        .waitFor((p) => probes.has(newId(p)), 500)
        .then(
          () => true,
          () => false,
        );
    }
    expect(seen).toBe(true);
    const bobsRow = await insert(bob, 'bob, after switch');
    const alicesRow = await insert(alice, 'alice, after switch');
    await viewer.waitFor((p) => newId(p) === alicesRow);
    expect(viewer.received.some((p) => newId(p) === bobsRow)).toBe(false);
  });

  it('refuses a join whose binding names a table outside the publication', async () => {
    const client = anonClient({ vsn });
    const channel = client
      .channel(`rce-bad-${randomUUID()}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'rce_missing' }, () => undefined);
    open.push({ client, channel });
    const error = await new Promise<Error | undefined>((resolve) => {
      channel.subscribe((status, err) => {
        if (`${status}` !== 'SUBSCRIBED') resolve(err);
      });
    });
    expect(String(error?.message)).toContain('Unable to subscribe to changes with given parameters');
  });
});

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOT_PREFIX } from '../../server/realtime/changes/slots.ts';
import {
  anonIdentity,
  binding,
  closeFeed,
  collector,
  type Feed,
  openFeed,
  serviceIdentity,
  settle,
  startFeed,
  userIdentity,
} from './realtime-changes-helpers.ts';

// Authorization: a change reaches a subscriber only if its role and claims may select the row.
let db: pg.Client;
let ctx: Feed;
const alice = randomUUID();
const bob = randomUUID();

beforeAll(async () => {
  ({ db, ctx } = await openFeed(
    ['rcr_notes', 'rcr_marker', 'rcr_fragile'],
    `
    create table if not exists public.rcr_notes (id bigserial primary key, owner uuid, body text, public bool default false, secret text);
    alter table public.rcr_notes enable row level security;
    drop policy if exists rcr_own on public.rcr_notes;
    create policy rcr_own on public.rcr_notes for select to authenticated using (owner = auth.uid());
    drop policy if exists rcr_public on public.rcr_notes;
    create policy rcr_public on public.rcr_notes for select to anon using (public);
    grant select on public.rcr_notes to authenticated, service_role;
    create table if not exists public.rcr_marker (id bigserial primary key, note text);
    create table if not exists public.rcr_fragile (id bigserial primary key, owner uuid);
    alter table public.rcr_fragile enable row level security;
    create or replace function public.rcr_claim_check() returns bool language plpgsql stable as $$
    begin
      if auth.jwt() ->> 'explode' = 'yes' then raise exception 'policy blew up'; end if;
      return true;
    end $$;
    drop policy if exists rcr_fragile_sel on public.rcr_fragile;
    create policy rcr_fragile_sel on public.rcr_fragile for select using (public.rcr_claim_check());
    grant select on public.rcr_marker, public.rcr_fragile to anon, authenticated, service_role;
  `,
    // Column privileges are all-or-nothing per table unless granted per column.
    `grant select (id, owner, body, public) on public.rcr_notes to anon`,
  ));
});

afterAll(() => closeFeed(ctx, db));

async function insertNote(owner: string, body: string, isPublic = false): Promise<number> {
  const r = await db.query<{ id: string }>(
    `insert into public.rcr_notes (owner, body, public, secret) values ($1, $2, $3, 's') returning id`,
    [owner, body, isPublic],
  );
  return Number(r.rows[0]!.id);
}

describe('postgres changes under RLS', () => {
  it('delivers a row only to subscribers whose claims may select it', async () => {
    const a = collector();
    const b = collector();
    const svc = collector();
    const anon = collector();
    const subs = [
      ctx.feed.subscribe(userIdentity(alice), [binding({ table: 'rcr_notes' })], a.deliver),
      ctx.feed.subscribe(userIdentity(bob), [binding({ table: 'rcr_notes' })], b.deliver),
      ctx.feed.subscribe(serviceIdentity(), [binding({ table: 'rcr_notes' })], svc.deliver),
      ctx.feed.subscribe(anonIdentity(), [binding({ table: 'rcr_notes' })], anon.deliver),
    ];
    const mine = await insertNote(alice, 'alice only');
    const shared = await insertNote(bob, 'public note', true);
    await db.query(`update public.rcr_notes set body = 'alice edited' where id = $1`, [mine]);
    await a.waitFor((r) => r.data.type === 'UPDATE' && r.data.record?.id === mine);
    await svc.waitFor((r) => r.data.type === 'UPDATE' && r.data.record?.id === mine);
    await anon.waitFor((r) => r.data.record?.id === shared);
    await settle(ctx.feed, db, 'rcr_marker');
    for (const s of subs) s.unsubscribe();
    const seen = (c: ReturnType<typeof collector>) =>
      c.received.map((r) => `${r.data.type}:${String(r.data.record?.id)}`);
    expect(seen(a)).toEqual([`INSERT:${mine}`, `UPDATE:${mine}`]);
    expect(seen(b)).toEqual([`INSERT:${shared}`]);
    expect(seen(svc)).toEqual([`INSERT:${mine}`, `INSERT:${shared}`, `UPDATE:${mine}`]);
    expect(seen(anon)).toEqual([`INSERT:${shared}`]);
    // anon may not read `secret`: it is neither in its columns nor in its record.
    const anonGot = anon.received[0]!.data;
    expect(anonGot.columns.map((c) => c.name)).toEqual(['id', 'owner', 'body', 'public']);
    expect(Object.keys(anonGot.record!)).toEqual(['id', 'owner', 'body', 'public']);
    expect(svc.received[1]!.data.record).toMatchObject({ secret: 's', body: 'public note' });
  });

  it('sends DELETEs to everyone who may read the table, with only the primary key', async () => {
    const id = await insertNote(alice, 'to delete');
    const b = collector();
    const sub = ctx.feed.subscribe(userIdentity(bob), [binding({ event: 'DELETE', table: 'rcr_notes' })], b.deliver);
    await db.query(`alter table public.rcr_notes replica identity full`);
    await db.query(`delete from public.rcr_notes where id = $1`, [id]);
    const got = await b.waitFor((r) => r.data.old_record?.id === id);
    sub.unsubscribe();
    await db.query(`alter table public.rcr_notes replica identity default`);
    expect(got.data.old_record).toEqual({ id });
  });

  it('authorises later changes with the new claims after an identity update', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(userIdentity(bob), [binding({ event: 'INSERT', table: 'rcr_notes' })], sink.deliver);
    const before = await insertNote(alice, 'before switch');
    await settle(ctx.feed, db, 'rcr_marker');
    sub.updateIdentity(userIdentity(alice));
    const after = await insertNote(alice, 'after switch');
    await sink.waitFor((r) => r.data.record?.id === after);
    sub.unsubscribe();
    expect(sink.received.map((r) => r.data.record?.id)).toEqual([after]);
    expect(before).toBeLessThan(after);
  });

  it('shares one check among subscribers with equal claims and keeps others apart', async () => {
    const sinks = Array.from({ length: 6 }, () => collector());
    const subs = sinks.map((s, i) =>
      ctx.feed.subscribe(
        userIdentity(i % 2 === 0 ? alice : bob),
        [binding({ event: 'INSERT', table: 'rcr_notes' })],
        s.deliver,
      ),
    );
    const id = await insertNote(bob, 'for bob');
    await sinks[1]!.waitFor((r) => r.data.record?.id === id);
    await settle(ctx.feed, db, 'rcr_marker');
    for (const s of subs) s.unsubscribe();
    expect(sinks.map((s) => s.received.length)).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('keeps streaming for others when one identity makes the RLS check fail', async () => {
    const ok = collector();
    const boom = collector();
    const subs = [
      ctx.feed.subscribe(userIdentity(alice), [binding({ table: 'rcr_fragile' })], ok.deliver),
      ctx.feed.subscribe(
        { role: 'authenticated', claims: { sub: bob, role: 'authenticated', explode: 'yes' } },
        [binding({ table: 'rcr_fragile' })],
        boom.deliver,
      ),
    ];
    const { rows } = await db.query<{ id: string }>(`insert into public.rcr_fragile (owner) values ($1) returning id`, [
      alice,
    ]);
    await ok.waitFor((r) => r.data.record?.id === Number(rows[0]!.id));
    await settle(ctx.feed, db, 'rcr_marker');
    for (const s of subs) s.unsubscribe();
    expect(boom.received).toEqual([]);
    expect(ctx.logs.some((l) => l.includes('policy blew up'))).toBe(true);
  });
  it("keeps delivering change after change while one identity's policy keeps raising", async () => {
    const ok = collector();
    const boom = collector();
    const subs = [
      ctx.feed.subscribe(userIdentity(alice), [binding({ event: 'INSERT', table: 'rcr_fragile' })], ok.deliver),
      ctx.feed.subscribe(
        { role: 'authenticated', claims: { sub: bob, role: 'authenticated', explode: 'yes' } },
        [binding({ event: 'INSERT', table: 'rcr_fragile' })],
        boom.deliver,
      ),
    ];
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        Number(
          (await db.query<{ id: string }>(`insert into public.rcr_fragile (owner) values ($1) returning id`, [alice]))
            .rows[0]!.id,
        ),
      );
    }
    for (const id of ids) await ok.waitFor((r) => r.data.record?.id === id);
    await settle(ctx.feed, db, 'rcr_marker');
    for (const s of subs) s.unsubscribe();
    expect(ok.received.map((r) => r.data.record?.id)).toEqual(ids);
    expect(boom.received).toEqual([]);
  });
  it('looks rows up by keys with quotes and backslashes intact', async () => {
    await db.query(`create table if not exists public.rcr_textkey (key text primary key, owner uuid);
      alter table public.rcr_textkey enable row level security;
      drop policy if exists rcr_textkey_sel on public.rcr_textkey;
      create policy rcr_textkey_sel on public.rcr_textkey for select to authenticated using (owner = auth.uid());
      grant select on public.rcr_textkey to anon, authenticated, service_role;`);
    const has = await db.query(
      `select 1 from pg_publication_tables where pubname = 'supabase_realtime' and tablename = 'rcr_textkey'`,
    );
    if (!has.rowCount) await db.query(`alter publication supabase_realtime add table public.rcr_textkey`);
    const sink = collector();
    const sub = ctx.feed.subscribe(
      userIdentity(alice),
      [binding({ event: 'INSERT', table: 'rcr_textkey' })],
      sink.deliver,
    );
    const key = `o'k \\ ${randomUUID()} \\' end`;
    await db.query(`insert into public.rcr_textkey values ($1, $2)`, [key, alice]);
    const got = await sink.waitFor((r) => r.data.record?.key === key);
    sub.unsubscribe();
    expect(got.data.record).toEqual({ key, owner: alice });
  });

  it('with filters, delivers by the filter and the policy even when the early check guessed wrong', async () => {
    // The router starts RLS checks for bindings whose `eq` filters look like they match
    // (text equal ignoring case) while it evaluates filters in SQL; the SQL outcome decides.
    const tag = randomUUID();
    const a = collector();
    const b = collector();
    const range = collector();
    const subs = [
      ctx.feed.subscribe(
        userIdentity(alice),
        [binding({ event: 'INSERT', table: 'rcr_notes', filter: `body=eq.lower-${tag}` })],
        a.deliver,
      ),
      ctx.feed.subscribe(
        userIdentity(bob),
        [binding({ event: 'INSERT', table: 'rcr_notes', filter: `body=eq.LOWER-${tag}` })],
        b.deliver,
      ),
      // Not an `eq`: never checked early, so it takes the one-after-the-other path.
      ctx.feed.subscribe(
        userIdentity(alice),
        [binding({ event: 'INSERT', table: 'rcr_notes', filter: `id=gt.0` })],
        range.deliver,
      ),
    ];
    await insertNote(alice, 'warm up the table facts');
    const lower = await insertNote(alice, `lower-${tag}`);
    const upperByBob = await insertNote(bob, `LOWER-${tag}`);
    const upperByAlice = await insertNote(alice, `LOWER-${tag}`);
    await range.waitFor((r) => r.data.record?.id === upperByAlice);
    await b.waitFor((r) => r.data.record?.id === upperByBob);
    await settle(ctx.feed, db, 'rcr_marker');
    for (const s of subs) s.unsubscribe();
    // alice's filter is case-sensitive text: only her lower-case note, never bob's.
    expect(a.received.map((r) => r.data.record?.id)).toEqual([lower]);
    // bob's filter matches two notes; the policy lets him see only his own.
    expect(b.received.map((r) => r.data.record?.id)).toEqual([upperByBob]);
    expect(range.received.map((r) => r.data.record?.id)).toEqual(expect.arrayContaining([lower, upperByAlice]));
    expect(range.received.map((r) => r.data.record?.id)).not.toContain(upperByBob);
  });

  it('checks readers early even when another subscriber cannot read the table at all', async () => {
    await db.query(`create table if not exists public.rcr_locked (id bigserial primary key, owner uuid);
      alter table public.rcr_locked enable row level security;
      drop policy if exists rcr_locked_sel on public.rcr_locked;
      create policy rcr_locked_sel on public.rcr_locked for select using (owner = auth.uid());
      -- Nothing for anon.
      grant select on public.rcr_locked to authenticated, service_role;`);
    const has = await db.query(
      `select 1 from pg_publication_tables where pubname = 'supabase_realtime' and tablename = 'rcr_locked'`,
    );
    if (!has.rowCount) await db.query(`alter publication supabase_realtime add table public.rcr_locked`);
    const mine = collector();
    const locked = collector();
    const subs = [
      ctx.feed.subscribe(userIdentity(alice), [binding({ event: 'INSERT', table: 'rcr_locked' })], mine.deliver),
      ctx.feed.subscribe(anonIdentity(), [binding({ event: 'INSERT', table: 'rcr_locked' })], locked.deliver),
    ];
    const insert = async () =>
      Number(
        (await db.query<{ id: string }>(`insert into public.rcr_locked (owner) values ($1) returning id`, [alice]))
          .rows[0]!.id,
      );
    const first = await insert();
    await mine.waitFor((r) => r.data.record?.id === first);
    // From the second change on, alice's check rides in the facts query; anon, who may not
    // read the table, must not be guessed into it (its lookup would fail the whole query).
    const standalone: string[] = [];
    const query = ctx.pool.query.bind(ctx.pool) as (...args: unknown[]) => unknown;
    ctx.pool.query = ((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('select realtime.chartroom_rows_visible'))
        standalone.push(args[0]);
      return query(...args);
    }) as typeof ctx.pool.query;
    try {
      const later = [await insert(), await insert()];
      for (const id of later) await mine.waitFor((r) => r.data.record?.id === id);
      await locked.waitFor((r) => r.data.errors?.length === 1 && locked.received.length === 3);
    } finally {
      ctx.pool.query = query as typeof ctx.pool.query;
      for (const sub of subs) sub.unsubscribe();
    }
    expect(mine.received).toHaveLength(3);
    expect(locked.received.map((r) => r.data.errors)).toEqual([
      ['Error 401: Unauthorized'],
      ['Error 401: Unauthorized'],
      ['Error 401: Unauthorized'],
    ]);
    expect(standalone).toEqual([]);
  });

  it('applies a privilege revoked between two changes to the very next change', async () => {
    await db.query(`create table if not exists public.rcr_revoke (id bigserial primary key, owner uuid);
      alter table public.rcr_revoke enable row level security;
      drop policy if exists rcr_revoke_sel on public.rcr_revoke;
      create policy rcr_revoke_sel on public.rcr_revoke for select to authenticated using (owner = auth.uid());
      grant select on public.rcr_revoke to authenticated;`);
    const has = await db.query(
      `select 1 from pg_publication_tables where pubname = 'supabase_realtime' and tablename = 'rcr_revoke'`,
    );
    if (!has.rowCount) await db.query(`alter publication supabase_realtime add table public.rcr_revoke`);
    const sink = collector();
    const sub = ctx.feed.subscribe(
      userIdentity(alice),
      [binding({ event: 'INSERT', table: 'rcr_revoke' })],
      sink.deliver,
    );
    const first = Number(
      (await db.query<{ id: string }>(`insert into public.rcr_revoke (owner) values ($1) returning id`, [alice]))
        .rows[0]!.id,
    );
    await sink.waitFor((r) => r.data.record?.id === first);
    await db.query(`revoke select on public.rcr_revoke from authenticated`);
    await db.query(`insert into public.rcr_revoke (owner) values ($1)`, [alice]);
    const second = await sink.waitFor((r) => r.data.record?.id !== first);
    sub.unsubscribe();
    await db.query(`grant select on public.rcr_revoke to authenticated`);
    expect(second.data.errors).toEqual(['Error 401: Unauthorized']);
    expect(second.data.record).toEqual({});
  });
});

describe('replication slot life cycle', () => {
  const slots = async (name: string) =>
    (await db.query<{ slot_name: string }>(`select slot_name from pg_replication_slots where slot_name = $1`, [name]))
      .rows.length;

  it('streams from a slot of its own and drops it on close()', async () => {
    const other = await startFeed();
    const name = other.feed.slotName;
    expect(name.startsWith(`${SLOT_PREFIX}${process.pid}_`)).toBe(true);
    const active = await db.query<{ active: boolean; plugin: string }>(
      `select active, plugin from pg_replication_slots where slot_name = $1`,
      [name],
    );
    expect(active.rows[0]).toEqual({ active: true, plugin: 'pgoutput' });
    await other.stop();
    expect(await slots(name)).toBe(0);
  });

  it('drops stale inactive slots of dead processes on start, and keeps everyone else’s', async () => {
    const foreign = `rcr_not_ours_${process.pid}`;
    if (!(await slots(foreign))) await db.query(`select pg_create_logical_replication_slot($1, 'pgoutput')`, [foreign]);
    try {
      // Any feed that starts meanwhile (other test files start gateways and feeds on this
      // database) may drop the stale slot first; then this feed rightly says nothing about
      // it. Try again with a fresh stale slot until this feed is the one that found it.
      let stale = '';
      let reported = false;
      for (let attempt = 0; attempt < 10 && !reported; attempt++) {
        stale = `${SLOT_PREFIX}3999999_${randomUUID().slice(0, 8)}`;
        await db.query(`select pg_create_logical_replication_slot($1, 'pgoutput')`, [stale]);
        const other = await startFeed();
        try {
          expect(await slots(stale)).toBe(0);
          expect(await slots(foreign)).toBe(1);
          expect(await slots(ctx.feed.slotName)).toBe(1);
          reported = other.logs.some((l) => l.includes(stale));
        } finally {
          await other.stop();
        }
      }
      expect(reported).toBe(true);
    } finally {
      await db.query(`select pg_drop_replication_slot($1)`, [foreign]);
    }
  });

  it('acknowledges what it reads, so the slot retains no WAL behind the stream', async () => {
    await db.query(`insert into public.rcr_marker (note) select 'bulk' from generate_series(1, 2000)`);
    const deadline = Date.now() + 20_000;
    let lag = Number.POSITIVE_INFINITY;
    while (Date.now() < deadline) {
      const r = await db.query<{ lag: string }>(
        `select pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn) as lag from pg_replication_slots where slot_name = $1`,
        [ctx.feed.slotName],
      );
      lag = Number(r.rows[0]?.lag);
      if (lag < 64 * 1024) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lag).toBeLessThan(64 * 1024);
  });
});

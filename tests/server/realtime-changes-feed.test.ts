import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anonIdentity,
  binding,
  closeFeed,
  collector,
  type Feed,
  openFeed,
  type Received,
  serviceIdentity,
  settle,
} from './realtime-changes-helpers.ts';

// Drives the postgres changes feed directly: decoding, payload shape, events and filters.
let db: pg.Client;
let ctx: Feed;

beforeAll(async () => {
  ({ db, ctx } = await openFeed(
    ['rcf_items', 'rcf_full', 'rcf_marker', 'rcf_toast'],
    `
    create table if not exists public.rcf_items (
      id bigserial primary key,
      n int4,
      big int8,
      price numeric,
      ratio float8,
      label text,
      code varchar(10),
      flag bool,
      meta jsonb,
      raw json,
      tags text[],
      nums int4[],
      at timestamptz,
      local_at timestamp,
      day date,
      uid uuid
    );
    create table if not exists public.rcf_full (id int primary key, body text, extra text);
    alter table public.rcf_full replica identity full;
    create table if not exists public.rcf_marker (id bigserial primary key, note text);
    create table if not exists public.rcf_toast (id int primary key, small text, big text);
    alter table public.rcf_toast alter column big set storage external;
    create table if not exists public.rcf_unpublished (id int primary key);
    grant select on public.rcf_items, public.rcf_full, public.rcf_marker, public.rcf_toast, public.rcf_unpublished to anon, authenticated, service_role;
  `,
  ));
});

afterAll(() => closeFeed(ctx, db));

function typesOf(r: Received): Record<string, string> {
  return Object.fromEntries(r.data.columns.map((c) => [c.name, c.type]));
}

describe('postgres changes feed: decoding', () => {
  it('sends an INSERT with hosted column types, converted values and commit_timestamp', async () => {
    const sink = collector();
    const b = binding({ event: 'INSERT', table: 'rcf_items' });
    const sub = ctx.feed.subscribe(serviceIdentity(), [b], sink.deliver);
    const before = Date.now();
    await db.query(`insert into public.rcf_items (n, big, price, ratio, label, code, flag, meta, raw, tags, nums, at, local_at, day, uid)
      values (42, 9007199254740993, 12.50, 1.5, 'it''s', 'abc', true, '{"a":[1,{"b":null}]}', '{"x": 1}',
              array['a b','c,d',null], '{1,2,3}', '2024-05-06 07:08:09.123456+02', '2024-05-06 07:08:09', '2024-05-06',
              'b5d5e9a8-2b7f-4b5a-9d1e-0c1b2a3d4e5f')`);
    const got = await sink.waitFor((r) => r.data.record?.n === 42);
    sub.unsubscribe();
    expect(got.ids).toEqual([b.id]);
    expect(got.data.type).toBe('INSERT');
    expect(got.data.schema).toBe('public');
    expect(got.data.table).toBe('rcf_items');
    expect(got.data.errors).toBeNull();
    expect(got.data.old_record).toBeUndefined();
    expect(typesOf(got)).toEqual({
      id: 'int8',
      n: 'int4',
      big: 'int8',
      price: 'numeric',
      ratio: 'float8',
      label: 'text',
      code: 'varchar',
      flag: 'bool',
      meta: 'jsonb',
      raw: 'json',
      tags: '_text',
      nums: '_int4',
      at: 'timestamptz',
      local_at: 'timestamp',
      day: 'date',
      uid: 'uuid',
    });
    expect(got.data.columns.map((c) => c.name)[0]).toBe('id');
    const rec = got.data.record!;
    expect(typeof rec.id).toBe('number');
    expect(rec).toMatchObject({
      n: 42,
      price: 12.5,
      ratio: 1.5,
      label: "it's",
      code: 'abc',
      flag: true,
      meta: { a: [1, { b: null }] },
      raw: { x: 1 },
      tags: ['a b', 'c,d', null],
      nums: [1, 2, 3],
      at: '2024-05-06T05:08:09.123456+00:00',
      local_at: '2024-05-06T07:08:09',
      day: '2024-05-06',
      uid: 'b5d5e9a8-2b7f-4b5a-9d1e-0c1b2a3d4e5f',
    });
    expect(rec.big).toBe(Number('9007199254740993'));
    expect(got.data.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const committed = Date.parse(got.data.commit_timestamp);
    expect(committed).toBeGreaterThanOrEqual(before - 1000);
    expect(committed).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('delivers UPDATE and DELETE with pk-only old_record under the default replica identity', async () => {
    const sink = collector();
    const all = binding({ event: '*', table: 'rcf_items' });
    const sub = ctx.feed.subscribe(serviceIdentity(), [all], sink.deliver);
    const { rows } = await db.query<{ id: string }>(
      `insert into public.rcf_items (n, label) values (7001, 'x') returning id`,
    );
    const id = Number(rows[0]!.id);
    await db.query(`update public.rcf_items set label = 'y' where id = $1`, [id]);
    await db.query(`delete from public.rcf_items where id = $1`, [id]);
    const del = await sink.waitFor((r) => r.data.type === 'DELETE' && r.data.old_record?.id === id);
    sub.unsubscribe();
    const mine = sink.received.filter((r) => (r.data.record?.id ?? r.data.old_record?.id) === id);
    expect(mine.map((r) => r.data.type)).toEqual(['INSERT', 'UPDATE', 'DELETE']);
    const upd = mine[1]!;
    expect(upd.data.record).toMatchObject({ id, n: 7001, label: 'y' });
    expect(upd.data.old_record).toEqual({ id });
    expect(del.data.old_record).toEqual({ id });
    expect(del.data.record).toBeUndefined();
    expect(del.data.columns.length).toBe(16);
  });

  it('sends the whole old row with replica identity full', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ table: 'rcf_full' })], sink.deliver);
    await db.query(
      `insert into public.rcf_full values (1, 'one', 'e') on conflict (id) do update set body = 'one', extra = 'e'`,
    );
    await db.query(`update public.rcf_full set body = 'uno' where id = 1`);
    await db.query(`delete from public.rcf_full where id = 1`);
    const del = await sink.waitFor((r) => r.data.type === 'DELETE');
    const upd = await sink.waitFor((r) => r.data.type === 'UPDATE');
    sub.unsubscribe();
    expect(upd.data.old_record).toEqual({ id: 1, body: 'one', extra: 'e' });
    expect(upd.data.record).toEqual({ id: 1, body: 'uno', extra: 'e' });
    expect(del.data.old_record).toEqual({ id: 1, body: 'uno', extra: 'e' });
  });

  it('leaves out an unchanged TOASTed value it cannot know, and fills it with replica identity full', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ event: 'UPDATE', table: 'rcf_toast' })], sink.deliver);
    const big = 'x'.repeat(10_000);
    await db.query(`alter table public.rcf_toast replica identity default`);
    await db.query(
      `insert into public.rcf_toast values (1, 'a', $1) on conflict (id) do update set big = excluded.big`,
      [big],
    );
    await db.query(`update public.rcf_toast set small = 'b' where id = 1`);
    const first = await sink.waitFor((r) => r.data.record?.small === 'b');
    expect(first.data.record).toEqual({ id: 1, small: 'b' });
    await db.query(`alter table public.rcf_toast replica identity full`);
    await db.query(`update public.rcf_toast set small = 'c' where id = 1`);
    const second = await sink.waitFor((r) => r.data.record?.small === 'c');
    sub.unsubscribe();
    expect(second.data.record).toEqual({ id: 1, small: 'c', big });
    await db.query(`delete from public.rcf_toast`);
  });

  it('routes by event: INSERT, UPDATE, DELETE and * bindings get only their events', async () => {
    const sinks = { INSERT: collector(), UPDATE: collector(), DELETE: collector(), '*': collector() } as const;
    const subs = (['INSERT', 'UPDATE', 'DELETE', '*'] as const).map((event) =>
      ctx.feed.subscribe(serviceIdentity(), [binding({ event, table: 'rcf_items' })], sinks[event].deliver),
    );
    const { rows } = await db.query<{ id: string }>(`insert into public.rcf_items (n) values (7100) returning id`);
    const id = Number(rows[0]!.id);
    await db.query(`update public.rcf_items set n = 7101 where id = $1`, [id]);
    await db.query(`delete from public.rcf_items where id = $1`, [id]);
    await sinks['*'].waitFor((r) => r.data.type === 'DELETE' && r.data.old_record?.id === id);
    await settle(ctx.feed, db, 'rcf_marker');
    for (const sub of subs) sub.unsubscribe();
    const typesFor = (s: ReturnType<typeof collector>) =>
      s.received.filter((r) => (r.data.record?.id ?? r.data.old_record?.id) === id).map((r) => r.data.type);
    expect(typesFor(sinks.INSERT)).toEqual(['INSERT']);
    expect(typesFor(sinks.UPDATE)).toEqual(['UPDATE']);
    expect(typesFor(sinks.DELETE)).toEqual(['DELETE']);
    expect(typesFor(sinks['*'])).toEqual(['INSERT', 'UPDATE', 'DELETE']);
  });

  it('matches every table of a schema when the table is absent or *, and lists all matching ids', async () => {
    const sink = collector();
    const wildcard = binding({ event: 'INSERT', table: '*' });
    const schemaOnly: ReturnType<typeof binding> = { id: 99_001, event: 'INSERT', schema: 'public' };
    const exact = binding({ event: 'INSERT', table: 'rcf_marker' });
    const sub = ctx.feed.subscribe(serviceIdentity(), [wildcard, schemaOnly, exact], sink.deliver);
    await db.query(`insert into public.rcf_marker (note) values ('wild')`);
    await db.query(`insert into public.rcf_full values (50, 'w', null) on conflict do nothing`);
    const marker = await sink.waitFor((r) => r.data.table === 'rcf_marker' && r.data.record?.note === 'wild');
    const full = await sink.waitFor((r) => r.data.table === 'rcf_full' && r.data.record?.id === 50);
    sub.unsubscribe();
    expect(marker.ids.sort()).toEqual([wildcard.id, schemaOnly.id, exact.id].sort());
    expect(full.ids.sort()).toEqual([wildcard.id, schemaOnly.id].sort());
    await db.query(`delete from public.rcf_full where id = 50`);
  });

  it('never streams a table outside the publication', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ table: 'rcf_unpublished' })], sink.deliver);
    await db.query(`insert into public.rcf_unpublished values (1) on conflict do nothing`);
    await settle(ctx.feed, db, 'rcf_marker');
    sub.unsubscribe();
    expect(sink.received).toEqual([]);
  });

  it('gives anon the same payload when the table has no RLS', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(anonIdentity(), [binding({ event: 'INSERT', table: 'rcf_marker' })], sink.deliver);
    await db.query(`insert into public.rcf_marker (note) values ('for anon')`);
    const got = await sink.waitFor((r) => r.data.record?.note === 'for anon');
    sub.unsubscribe();
    expect(got.data.columns).toEqual([
      { name: 'id', type: 'int8' },
      { name: 'note', type: 'text' },
    ]);
  });
});

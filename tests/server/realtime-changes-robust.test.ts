import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextPgoutputPlugin } from '../../server/realtime/changes/replication.ts';
import { parseArrayLiteral } from '../../server/realtime/changes/values.ts';
import { superDb } from '../setup/clients.ts';
import {
  anonIdentity,
  binding,
  closeFeed,
  collector,
  type Feed,
  openFeed,
  serviceIdentity,
  startFeed,
} from './realtime-changes-helpers.ts';

// Odd types, odd tables and a dropped connection: the stream goes on.
let db: pg.Client;
let ctx: Feed;

beforeAll(async () => {
  ({ db, ctx } = await openFeed(
    ['rco_odd', 'rco_nopk', 'rco_hidden', 'rco_log'],
    `
    do $$ begin
      create type public.rco_mood as enum ('happy', 'sad');
    exception when duplicate_object then null; end $$;
    do $$ begin
      create type public.rco_point as (x int4, label text);
    exception when duplicate_object then null; end $$;
    do $$ begin
      create domain public.rco_positive as int4 check (value > 0);
    exception when duplicate_object then null; end $$;
    create table if not exists public.rco_odd (
      id int primary key, mood public.rco_mood, pt public.rco_point, pos public.rco_positive,
      span int8range, took interval, bytes bytea, moods public.rco_mood[], grid int4[][], ok bool[]
    );
    create table if not exists public.rco_nopk (a int, b text);
    create table if not exists public.rco_hidden (id int primary key, body text);
    grant select on public.rco_hidden to authenticated, service_role;
    grant select (body) on public.rco_hidden to anon;
    create table if not exists public.rco_log (id bigserial primary key, note text);
    grant select on public.rco_odd, public.rco_nopk, public.rco_log to anon, authenticated, service_role;
  `,
  ));
});

afterAll(() => closeFeed(ctx, db));

describe('postgres changes: robustness', () => {
  it('turns undecodable replication messages and malformed arrays into values, never throws', () => {
    const plugin = new TextPgoutputPlugin({ protoVersion: 1, publicationNames: ['supabase_realtime'] });
    for (const bytes of [[0x99], [0x49, 0, 0, 0, 7, 0x4e], [0x52, 0, 0], []]) {
      expect((plugin.parse(Buffer.from(bytes)) as { tag: string }).tag).toBe('decode-error');
    }
    expect(parseArrayLiteral('{1,"unterminated')).toEqual(['{1,"unterminated']);
    expect(parseArrayLiteral('[0:1]={7,8}')).toEqual(['7', '8']);
    expect(parseArrayLiteral('{{"a\\"b",NULL},{c,d}}')).toEqual([
      ['a"b', null],
      ['c', 'd'],
    ]);
  });

  it('converts enums, composites, domains, ranges, intervals, bytea and nested arrays as hosted does', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ event: 'INSERT', table: 'rco_odd' })], sink.deliver);
    await db.query(`delete from public.rco_odd`);
    await db.query(`insert into public.rco_odd values (1, 'happy', row(3, 'a "q"'), 7, '[1,5)', '1 day 02:00:00', '\\x0102',
      '{happy,sad}', '{{1,2},{3,4}}', '{t,f,null}')`);
    const got = await sink.waitFor((r) => r.data.record?.id === 1);
    sub.unsubscribe();
    expect(Object.fromEntries(got.data.columns.map((c) => [c.name, c.type]))).toMatchObject({
      mood: 'rco_mood',
      pt: 'rco_point',
      pos: 'rco_positive',
      span: 'int8range',
      took: 'interval',
      bytes: 'bytea',
      moods: '_rco_mood',
      grid: '_int4',
      ok: '_bool',
    });
    expect(got.data.record).toEqual({
      id: 1,
      mood: 'happy',
      pt: { x: 3, label: 'a "q"' },
      pos: 7,
      span: '[1,5)',
      took: '1 day 02:00:00',
      bytes: '\\x0102',
      moods: ['happy', 'sad'],
      grid: [
        [1, 2],
        [3, 4],
      ],
      ok: [true, false, null],
    });
  });

  it('tells subscribers of a table without a primary key, like hosted, and goes on', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ event: 'INSERT', table: 'rco_nopk' })], sink.deliver);
    await db.query(`insert into public.rco_nopk values (1, 'x')`);
    const got = await sink.waitFor((r) => r.data.table === 'rco_nopk');
    sub.unsubscribe();
    expect(got.data.errors).toEqual(['Error 400: Bad Request, no primary key']);
    expect(got.data.record).toEqual({});
  });

  it('reports Unauthorized to a role that cannot read the primary key, and trims columns', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(anonIdentity(), [binding({ event: 'INSERT', table: 'rco_hidden' })], sink.deliver);
    await db.query(
      `insert into public.rco_hidden values ((select coalesce(max(id), 0) + 1 from public.rco_hidden), 'b')`,
    );
    const got = await sink.waitFor((r) => r.data.table === 'rco_hidden');
    sub.unsubscribe();
    expect(got.data.errors).toEqual(['Error 401: Unauthorized']);
    expect(got.data.columns).toEqual([]);
  });

  it('survives a TRUNCATE and an oversized record', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ table: 'rco_log' })], sink.deliver);
    await db.query(`truncate public.rco_log`);
    const big = 'y'.repeat(1_100_000);
    await db.query(`insert into public.rco_log (note) values ($1)`, [big]);
    const large = await sink.waitFor((r) => r.data.errors !== null);
    await db.query(`insert into public.rco_log (note) values ('after')`);
    await sink.waitFor((r) => r.data.record?.note === 'after');
    sub.unsubscribe();
    expect(large.data.errors).toEqual(['Error 413: Payload Too Large']);
    expect(large.data.record).not.toHaveProperty('note');
    expect(ctx.logs.some((l) => l.includes('truncate of public.rco_log'))).toBe(true);
  });

  it('reconnects after the replication connection is killed and resumes where it left off', async () => {
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), [binding({ event: 'INSERT', table: 'rco_log' })], sink.deliver);
    // The feed's replication connection is the platform's (supabase_admin): only a superuser ends it.
    const sup = await superDb();
    try {
      await sup.query(
        `select pg_terminate_backend(active_pid) from pg_replication_slots where slot_name = $1 and active`,
        [ctx.feed.slotName],
      );
    } finally {
      await sup.end();
    }
    // Written while the feed is disconnected: the slot keeps it for the next connection.
    await db.query(`insert into public.rco_log (note) values ('during outage')`);
    await sink.waitFor((r) => r.data.record?.note === 'during outage', 15_000);
    await db.query(`insert into public.rco_log (note) values ('after outage')`);
    await sink.waitFor((r) => r.data.record?.note === 'after outage');
    sub.unsubscribe();
    expect(ctx.logs.some((l) => l.includes('replication'))).toBe(true);
    const active = await db.query<{ active: boolean }>(`select active from pg_replication_slots where slot_name = $1`, [
      ctx.feed.slotName,
    ]);
    expect(active.rows[0]?.active).toBe(true);
  });

  it('bounds its queue: when routing falls behind it drops changes, says so, and carries on', async () => {
    const small = await startFeed({ maxQueue: 3 });
    try {
      const sink = collector();
      const sub = small.feed.subscribe(
        serviceIdentity(),
        [binding({ event: 'INSERT', table: 'rco_log' })],
        sink.deliver,
      );
      await db.query(`insert into public.rco_log (note) select 'burst' from generate_series(1, 300)`);
      // Once the burst is drained, new changes flow again.
      let after = false;
      for (let i = 0; i < 50 && !after; i++) {
        await db.query(`insert into public.rco_log (note) values ('after burst')`);
        after = await sink
          .waitFor((r) => r.data.record?.note === 'after burst', 300)
          .then(
            () => true,
            () => false,
          );
      }
      expect(after).toBe(true);
      sub.unsubscribe();
      const burst = sink.received.filter((r) => r.data.record?.note === 'burst').length;
      expect(burst).toBeGreaterThan(0);
      expect(burst).toBeLessThan(300);
      expect(small.logs.some((l) => l.includes('change queue full'))).toBe(true);
    } finally {
      await small.stop();
    }
  });
});

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterLikelyHolds, parseFilter } from '../../server/realtime/changes/filters.ts';
import {
  anonIdentity,
  binding,
  closeFeed,
  collector,
  type Feed,
  openFeed,
  serviceIdentity,
  settle,
} from './realtime-changes-helpers.ts';

// Filters compare with the column's type: numbers numerically, timestamps as instants.
let db: pg.Client;
let ctx: Feed;

beforeAll(async () => {
  ({ db, ctx } = await openFeed(
    ['rcx_rows', 'rcx_marker', 'rcx_secret'],
    `
    create table if not exists public.rcx_rows (id bigserial primary key, n int4, label text, at timestamptz, room uuid, done bool);
    create table if not exists public.rcx_marker (id bigserial primary key, note text);
    create table if not exists public.rcx_secret (id int primary key, hidden text);
    create table if not exists public.rcx_unpublished (id int primary key);
    grant select on public.rcx_rows, public.rcx_marker, public.rcx_unpublished to anon, authenticated, service_role;
    -- rcx_secret: not for anon.
    grant select on public.rcx_secret to authenticated, service_role;
  `,
  ));
});

afterAll(() => closeFeed(ctx, db));

describe('postgres changes filters', () => {
  it('guesses only a plain eq equal to the row text as likely to hold (a hint for early RLS checks)', () => {
    const row = { room: 'a1b2c3d4-0000-4000-8000-00000000000a', label: 'Hi', n: '10', gone: null };
    const filter = (text: string) => {
      const parsed = parseFilter(text);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.filters[0]!;
    };
    expect(filterLikelyHolds(filter('room=eq.A1B2C3D4-0000-4000-8000-00000000000A'), row)).toBe(true);
    expect(filterLikelyHolds(filter('label=eq.Hi'), row)).toBe(true);
    expect(filterLikelyHolds(filter('n=eq.10'), row)).toBe(true);
    expect(filterLikelyHolds(filter('n=eq.11'), row)).toBe(false);
    expect(filterLikelyHolds(filter('n=not.eq.11'), row)).toBe(false);
    expect(filterLikelyHolds(filter('n=gt.1'), row)).toBe(false);
    expect(filterLikelyHolds(filter('n=in.(10,11)'), row)).toBe(false);
    expect(filterLikelyHolds(filter('gone=eq.x'), row)).toBe(false);
    expect(filterLikelyHolds(filter('missing=eq.x'), row)).toBe(false);
    expect(filterLikelyHolds(filter('label=eq.Hi'), null)).toBe(false);
  });

  it('applies eq, neq, lt, lte, gt, gte and in with numeric, text, time and uuid semantics', async () => {
    const room = 'a1b2c3d4-0000-4000-8000-000000000001';
    const filters = {
      eq: 'n=eq.10',
      neq: 'n=neq.10',
      lt: 'n=lt.10',
      lte: 'n=lte.10',
      gt: 'n=gt.9',
      gte: 'n=gte.10',
      in: 'n=in.(2,10,300)',
      textIn: 'label=in.("a,b",z)',
      timeGt: 'at=gt.2024-01-01T00:00:00Z',
      uuidEq: `room=eq.${room}`,
      notEq: 'n=not.eq.10',
      both: 'n=gt.1,n=lt.100',
    };
    const bindings = Object.fromEntries(
      Object.entries(filters).map(([k, filter]) => [k, binding({ event: 'INSERT', table: 'rcx_rows', filter })]),
    );
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), Object.values(bindings), sink.deliver);
    const insert = async (n: number, label: string, at: string, roomId: string | null) =>
      Number(
        (
          await db.query<{ id: string }>(
            `insert into public.rcx_rows (n, label, at, room) values ($1, $2, $3, $4) returning id`,
            [n, label, at, roomId],
          )
        ).rows[0]!.id,
      );
    // 10 vs 9 and 100: a text comparison would get gt/lt wrong ("10" < "9").
    const ten = await insert(10, 'a,b', '2024-06-01 00:00:00+00', room);
    const nine = await insert(9, 'z', '2023-12-31 23:00:00-02', null); // = 2024-01-01T01:00Z, after the cut
    const big = await insert(300, 'q', '2023-01-01 00:00:00+00', null);
    await settle(ctx.feed, db, 'rcx_marker');
    sub.unsubscribe();
    const idsFor = (id: number) => {
      const hit = sink.received.find((r) => r.data.record?.id === id);
      const names = Object.entries(bindings)
        .filter(([, b]) => hit?.ids.includes(b.id))
        .map(([k]) => k);
      return names.sort();
    };
    expect(idsFor(ten)).toEqual(['both', 'eq', 'gt', 'gte', 'in', 'lte', 'textIn', 'timeGt', 'uuidEq'].sort());
    expect(idsFor(nine)).toEqual(['both', 'lt', 'lte', 'neq', 'notEq', 'textIn', 'timeGt'].sort());
    expect(idsFor(big)).toEqual(['gt', 'gte', 'in', 'neq', 'notEq'].sort());
  });

  it('supports hosted’s other operators: like, ilike, match, imatch, is and isdistinct', async () => {
    const filters = {
      like: 'label=like.Ab%',
      ilike: 'label=ilike.ab%',
      match: 'label=match.^A.c$',
      imatch: 'label=imatch.^a.C$',
      isTrue: 'done=is.true',
      isNotNull: 'n=not.is.null',
      distinct: 'n=isdistinct.1',
    };
    const bindings = Object.fromEntries(
      Object.entries(filters).map(([k, filter]) => [k, binding({ event: 'INSERT', table: 'rcx_rows', filter })]),
    );
    const sink = collector();
    const sub = ctx.feed.subscribe(serviceIdentity(), Object.values(bindings), sink.deliver);
    const insert = async (label: string, done: boolean | null, n: number | null) =>
      Number(
        (
          await db.query<{ id: string }>(
            `insert into public.rcx_rows (label, done, n) values ($1, $2, $3) returning id`,
            [label, done, n],
          )
        ).rows[0]!.id,
      );
    const abc = await insert('Abc', true, 1);
    const low = await insert('abc', null, null);
    await settle(ctx.feed, db, 'rcx_marker');
    sub.unsubscribe();
    const namesFor = (id: number) => {
      const hit = sink.received.find((r) => r.data.record?.id === id);
      return Object.entries(bindings)
        .filter(([, b]) => hit?.ids.includes(b.id))
        .map(([k]) => k)
        .sort();
    };
    expect(namesFor(abc)).toEqual(['ilike', 'imatch', 'isNotNull', 'isTrue', 'like', 'match'].sort());
    expect(namesFor(low)).toEqual(['distinct', 'ilike', 'imatch'].sort());
  });

  it('filters DELETEs on the old key, and a NULL value matches no comparison', async () => {
    const sink = collector();
    const byId = binding({ event: 'DELETE', table: 'rcx_rows', filter: 'id=gte.1' });
    const byLabel = binding({ event: 'DELETE', table: 'rcx_rows', filter: 'label=eq.gone' });
    const nullN = binding({ event: 'INSERT', table: 'rcx_rows', filter: 'n=neq.5' });
    const isNull = binding({ event: 'INSERT', table: 'rcx_rows', filter: 'n=is.null' });
    const sub = ctx.feed.subscribe(serviceIdentity(), [byId, byLabel, nullN, isNull], sink.deliver);
    const id = Number(
      (await db.query<{ id: string }>(`insert into public.rcx_rows (n, label) values (null, 'gone') returning id`))
        .rows[0]!.id,
    );
    await db.query(`delete from public.rcx_rows where id = $1`, [id]);
    const del = await sink.waitFor((r) => r.data.type === 'DELETE' && r.data.old_record?.id === id);
    const ins = await sink.waitFor((r) => r.data.type === 'INSERT' && r.data.record?.id === id);
    sub.unsubscribe();
    // Only the key is in the WAL for a DELETE without replica identity full.
    expect(del.ids).toEqual([byId.id]);
    expect(ins.ids).toEqual([isNull.id]);
  });

  it('parses filters like hosted realtime', () => {
    expect(parseFilter('id=eq.1')).toEqual({
      ok: true,
      filters: [{ column: 'id', op: 'eq', value: '1', negate: false }],
    });
    expect(parseFilter('name=in.(a,"b,c")')).toEqual({
      ok: true,
      filters: [{ column: 'name', op: 'in', value: '{a,"b,c"}', negate: false }],
    });
    expect(parseFilter('name=eq."quoted"')).toEqual({
      ok: true,
      filters: [{ column: 'name', op: 'eq', value: 'quoted', negate: false }],
    });
    expect(parseFilter('')).toEqual({ ok: true, filters: [] });
    expect(parseFilter('subject=foo.hey')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["foo", "hey"]',
    });
    expect(parseFilter('undefined')).toEqual({ ok: false, error: 'Error parsing `filter` params: ["undefined"]' });
    expect(parseFilter('id=in.1,2')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: `in` filter value must be wrapped by parentheses',
    });
    expect(parseFilter('id=eq.1,,')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: filter must not contain empty segments (check for extra commas)',
    });
  });
});

describe('postgres changes validate()', () => {
  const notEnabled = (table: string, filters = '[]', event = '*') =>
    `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [event: ${event}, schema: public, table: ${table}, filters: ${filters}, select: nil]`;

  it('accepts valid bindings', async () => {
    expect(
      await ctx.feed.validate(
        [binding({ table: 'rcx_rows', filter: 'n=in.(1,2)' }), binding({ table: '*' })],
        anonIdentity(),
      ),
    ).toBeNull();
    expect(await ctx.feed.validate([{ id: 1, event: 'INSERT', schema: 'public' }], anonIdentity())).toBeNull();
  });

  it('refuses unknown, unpublished and unreadable tables with hosted wording', async () => {
    expect(await ctx.feed.validate([binding({ table: 'rcx_nope' })], anonIdentity())).toBe(notEnabled('rcx_nope'));
    expect(await ctx.feed.validate([binding({ table: 'rcx_unpublished', event: 'INSERT' })], anonIdentity())).toBe(
      notEnabled('rcx_unpublished', '[]', 'INSERT'),
    );
    expect(await ctx.feed.validate([binding({ table: 'rcx_secret' })], anonIdentity())).toBe(notEnabled('rcx_secret'));
    expect(await ctx.feed.validate([binding({ table: 'rcx_secret' })], serviceIdentity())).toBeNull();
    expect(await ctx.feed.validate([binding({ schema: 'nowhere', table: 'x' })], anonIdentity())).toBe(
      notEnabled('x').replace('schema: public', 'schema: nowhere'),
    );
  });

  it('refuses bad filter syntax, unknown operators and columns, and values of the wrong type', async () => {
    expect(await ctx.feed.validate([binding({ table: 'rcx_rows', filter: 'n=between.1' })], anonIdentity())).toBe(
      'Error parsing `filter` params: ["between", "1"]',
    );
    expect(await ctx.feed.validate([binding({ table: 'rcx_rows', filter: 'nope' })], anonIdentity())).toBe(
      'Error parsing `filter` params: ["nope"]',
    );
    const prefix = (filters: string) =>
      `Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [event: *, schema: public, table: rcx_rows, filters: ${filters}, select: nil]. Exception: `;
    expect(await ctx.feed.validate([binding({ table: 'rcx_rows', filter: 'ghost=eq.1' })], anonIdentity())).toBe(
      `${prefix('[{"ghost", "eq", "1", false}]')}ERROR P0001 (raise_exception) invalid column for filter ghost`,
    );
    expect(await ctx.feed.validate([binding({ table: 'rcx_rows', filter: 'n=eq.abc' })], anonIdentity())).toBe(
      `${prefix('[{"n", "eq", "abc", false}]')}ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "abc"`,
    );
    expect(await ctx.feed.validate([binding({ table: 'rcx_rows', filter: 'n=is.maybe' })], anonIdentity())).toBe(
      `${prefix('[{"n", "is", "maybe", false}]')}ERROR P0001 (raise_exception) invalid value for is filter: must be null, true, false, or unknown`,
    );
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { anonClient, serviceClient } from '../setup/clients.ts';
import { arrange, json, rest, sql, userClient } from './rest/helpers.ts';

const SETUP = `
create table if not exists public.rp_items (id int primary key, name text, owner_id int);
create table if not exists public.rp_log (id serial primary key, note text);
grant select, insert on public.rp_items, public.rp_log to anon, authenticated, service_role;
grant usage on sequence public.rp_log_id_seq to anon, authenticated, service_role;
truncate public.rp_items;
insert into public.rp_items values (1, 'one', 1), (2, 'two', 1), (3, 'three', 2);
create or replace function public.rp_add(a int, b int) returns int language sql as 'select a + b';
create or replace function public.rp_hello() returns text language sql as $$ select 'hello' $$;
create or replace function public.rp_items_from(min_id int) returns setof public.rp_items language sql stable
  as 'select * from public.rp_items where id >= min_id';
create or replace function public.rp_squares(n int) returns table(x int, sq int) language sql
  as 'select i, i * i from generate_series(1, n) i';
create or replace function public.rp_names() returns setof text language sql as $$ select unnest(array['b', 'a']) $$;
create or replace function public.rp_first() returns public.rp_items language sql as 'select * from public.rp_items order by id limit 1';
create or replace function public.rp_note(note text) returns void language sql as 'insert into public.rp_log (note) values (note)';
create or replace function public.rp_whole(jsonb) returns jsonb language sql as $$ select $1 || '{"seen": true}' $$;
create or replace function public.rp_single(payload json) returns json language sql as 'select payload';
create or replace function public.rp_over(a int) returns text language sql as $$ select 'int' $$;
create or replace function public.rp_over(a text) returns text language sql as $$ select 'text' $$;
create or replace function public.rp_over(a int, b int) returns text language sql as $$ select 'two' $$;
create or replace function public.rp_defaults(a int, b int default 10) returns int language sql as 'select a * b';
create or replace function public.rp_arr(xs int[]) returns int language sql as 'select coalesce(array_length(xs, 1), 0)';
create or replace function public.rp_context() returns json language sql stable as $$
  select json_build_object('role', current_user, 'claim_role', auth.role(), 'sub', auth.uid(),
    'method', current_setting('request.method', true), 'path', current_setting('request.path', true),
    'client', current_setting('request.headers', true)::json->>'x-client-info')
$$;
create or replace function public.rp_raise(kind text) returns int language plpgsql as $$
begin
  if kind = 'plain' then raise exception 'plain failure' using hint = 'try again';
  elsif kind = 'payment' then raise sqlstate 'PT402' using message = 'payment required';
  elsif kind = 'pgrst' then raise sqlstate 'PGRST' using message = '{"code":"TEA01","message":"no coffee","hint":"tea"}',
    detail = '{"status":418,"headers":{"X-Tea":"yes"}}';
  end if;
  return 1;
end $$;
create or replace function public.rp_sleep(seconds float) returns int language sql as 'select 1 from pg_sleep(seconds)';
create or replace function public.rp_headers() returns int language plpgsql as $$
begin
  perform set_config('response.headers', '[{"X-Custom":"on"}]', true);
  perform set_config('response.status', '202', true);
  return 1;
end $$;
`;

beforeAll(async () => {
  await arrange(SETUP, 'rp_log');
  // Functions appear through the same NOTIFY; wait until the last one is known.
  for (let i = 0; i < 100; i++) {
    if (
      (await rest('/rpc/rp_headers', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status !== 404
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
});

describe('rpc', () => {
  const db = anonClient();

  it('calls scalar functions by POST and by GET', async () => {
    expect((await db.rpc('rp_add', { a: 2, b: 3 })).data).toBe(5);
    expect((await db.rpc('rp_add', { a: 2, b: 3 }, { get: true })).data).toBe(5);
    expect((await db.rpc('rp_hello')).data).toBe('hello');
    expect((await db.rpc('rp_defaults', { a: 2 })).data).toBe(20);
    expect((await db.rpc('rp_arr', { xs: [1, 2, 3] })).data).toBe(3);
    expect((await db.rpc('rp_arr', { xs: '{1,2}' }, { get: true })).data).toBe(2);
  });

  it('returns sets as arrays with select, filters, order, limit and count', async () => {
    const rows = await db.rpc('rp_items_from', { min_id: 2 }).select('name').order('id', { ascending: false });
    expect(rows.data).toEqual([{ name: 'three' }, { name: 'two' }]);
    const filtered = await db.rpc('rp_items_from', { min_id: 1 }).eq('owner_id', 1).limit(1).order('id');
    expect(filtered.data).toEqual([{ id: 1, name: 'one', owner_id: 1 }]);
    const table = await db.rpc('rp_squares', { n: 3 }).gt('sq', 1);
    expect(table.data).toEqual([
      { x: 2, sq: 4 },
      { x: 3, sq: 9 },
    ]);
    const counted = await db.rpc('rp_squares', { n: 5 }, { count: 'exact' }).range(0, 1);
    expect(counted.count).toBe(5);
    expect(counted.data).toHaveLength(2);
    expect((await db.rpc('rp_names')).data).toEqual(['b', 'a']);
    expect((await db.rpc('rp_first')).data).toEqual({ id: 1, name: 'one', owner_id: 1 });
    const get = await rest('/rpc/rp_items_from?min_id=3&select=id');
    expect(await json(get)).toEqual([{ id: 3 }]);
  });

  it('answers 204 for void functions and writes in their transaction', async () => {
    const res = await db.rpc('rp_note', { note: 'from-rpc' });
    expect(res.status).toBe(204);
    expect(res.data).toBeNull();
    const rows = await sql(`select 1 from public.rp_log where note = 'from-rpc'`);
    expect(rows).toHaveLength(1);
  });

  it('refuses writes through GET (read-only transaction, 405)', async () => {
    const res = await rest('/rpc/rp_note?note=via-get');
    expect(res.status).toBe(405);
    expect((await json(res)).code).toBe('25006');
  });

  it('passes the whole body to a single unnamed json parameter or with params=single-object', async () => {
    expect((await db.rpc('rp_whole', { x: 1 })).data).toEqual({ x: 1, seen: true });
    const single = await rest('/rpc/rp_single', {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'params=single-object' },
      body: JSON.stringify({ any: ['thing'] }),
    });
    expect(await json(single)).toEqual({ any: ['thing'] });
  });

  it('resolves overloads by argument names, and reports PGRST202/PGRST203', async () => {
    expect((await db.rpc('rp_over', { a: 1, b: 2 })).data).toBe('two');
    const ambiguous = await db.rpc('rp_over', { a: 1 });
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.error).toMatchObject({
      code: 'PGRST203',
      message:
        'Could not choose the best candidate function between: public.rp_over(a => integer), public.rp_over(a => text)',
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    });
    const missing = await db.rpc('rp_nope', { x: 1 });
    expect(missing.status).toBe(404);
    expect(missing.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.rp_nope(x) in the schema cache',
      details:
        'Searched for the function public.rp_nope with parameter x or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    });
    const wrongArgs = await db.rpc('rp_add', { a: 1, c: 2 });
    expect(wrongArgs.error?.code).toBe('PGRST202');
    expect(wrongArgs.error?.hint).toBe('Perhaps you meant to call the function public.rp_add(a, b)');
    const badValue = await db.rpc('rp_add', { a: 'x', b: 1 });
    expect(badValue.status).toBe(400);
    expect(badValue.error?.code).toBe('22P02');
  });

  it('maps raised errors: P0001 400, PTxxx custom status, PGRST full control', async () => {
    const plain = await db.rpc('rp_raise', { kind: 'plain' });
    expect(plain.status).toBe(400);
    expect(plain.error).toMatchObject({ code: 'P0001', message: 'plain failure', hint: 'try again' });
    const payment = await db.rpc('rp_raise', { kind: 'payment' });
    expect(payment.status).toBe(402);
    expect(payment.error?.code).toBe('PT402');
    const tea = await rest('/rpc/rp_raise', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"pgrst"}',
    });
    expect(tea.status).toBe(418);
    expect(tea.headers.get('x-tea')).toBe('yes');
    expect(await json(tea)).toEqual({ code: 'TEA01', message: 'no coffee', details: null, hint: 'tea' });
  });

  it('applies response.headers and response.status set in SQL', async () => {
    const res = await rest('/rpc/rp_headers', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-custom')).toBe('on');
  });

  it('runs as the caller with request.jwt.claims, request.method, request.path and headers', async () => {
    const anon = await db.rpc('rp_context');
    expect(anon.data).toMatchObject({
      role: 'anon',
      claim_role: 'anon',
      sub: null,
      method: 'POST',
      path: '/rest/v1/rpc/rp_context',
    });
    expect((anon.data as { client: string }).client).toContain('supabase-js');
    const sub = '00000000-0000-4000-8000-0000000000aa';
    const user = await userClient(sub).rpc('rp_context', {}, { get: true });
    expect(user.data).toMatchObject({ role: 'authenticated', claim_role: 'authenticated', sub, method: 'GET' });
    const service = await serviceClient().rpc('rp_context');
    expect(service.data).toMatchObject({ role: 'service_role', claim_role: 'service_role' });
  });

  it("applies the role's statement_timeout (anon: 3s) and reports 57014", async () => {
    const res = await db.rpc('rp_sleep', { seconds: 10 });
    expect(res.error).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    expect(res.status).toBe(500);
    expect((await serviceClient().rpc('rp_sleep', { seconds: 0.01 })).data).toBe(1);
  });

  it('refuses other methods on functions', async () => {
    const res = await rest('/rpc/rp_hello', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect((await json(res)).code).toBe('PGRST101');
  });
});

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { anonClient, backendInfo, serviceClient } from '../setup/clients.ts';
import { arrange, json, rest, sql, userClient, userToken } from './rest/helpers.ts';

const ALICE = '00000000-0000-4000-8000-00000000a11c';
const BOB = '00000000-0000-4000-8000-000000000b0b';

const SETUP = `
create table if not exists public.rs_notes (
  id serial primary key,
  owner uuid not null default auth.uid(),
  body text,
  public boolean not null default false
);
alter table public.rs_notes enable row level security;
drop policy if exists rs_read on public.rs_notes;
drop policy if exists rs_insert on public.rs_notes;
drop policy if exists rs_update on public.rs_notes;
drop policy if exists rs_delete on public.rs_notes;
create policy rs_read on public.rs_notes for select using (public or owner = auth.uid());
create policy rs_insert on public.rs_notes for insert to authenticated with check (owner = auth.uid());
create policy rs_update on public.rs_notes for update to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
create policy rs_delete on public.rs_notes for delete to authenticated using (owner = auth.uid());
grant select, insert, update, delete on public.rs_notes to anon, authenticated, service_role;
grant usage on sequence public.rs_notes_id_seq to anon, authenticated, service_role;
-- Granted to no API role, as every new table in public is on hosted.
create table if not exists public.rs_secret (id int primary key, v text);
truncate public.rs_notes;
insert into public.rs_notes (owner, body, public) values
  ('${ALICE}', 'alice public', true), ('${ALICE}', 'alice private', false), ('${BOB}', 'bob private', false);
`;

beforeAll(async () => {
  await arrange(SETUP, 'rs_secret');
});

const bodies = (data: unknown) => ((data ?? []) as { body: string }[]).map((r) => r.body).sort();

describe('row level security through the request role', () => {
  it('shows anon only public rows and refuses its inserts with 401', async () => {
    const anon = anonClient();
    const { data } = await anon.from('rs_notes').select('body');
    expect(bodies(data)).toEqual(['alice public']);
    const insert = await anon.from('rs_notes').insert({ owner: ALICE, body: 'anon try' });
    expect(insert.status).toBe(401);
    expect(insert.error?.code).toBe('42501');
  });

  it('gives each signed-in user their own rows and refuses forged ownership with 403', async () => {
    const alice = userClient(ALICE);
    const bob = userClient(BOB);
    expect(bodies((await alice.from('rs_notes').select('body')).data)).toEqual(['alice private', 'alice public']);
    expect(bodies((await bob.from('rs_notes').select('body')).data)).toEqual(['alice public', 'bob private']);
    const mine = await bob.from('rs_notes').insert({ body: 'bob new' }).select('owner, body').single();
    expect(mine.data).toEqual({ owner: BOB, body: 'bob new' });
    const forged = await bob.from('rs_notes').insert({ owner: ALICE, body: 'pretending' });
    expect(forged.status).toBe(403);
    expect(forged.error).toMatchObject({
      code: '42501',
      message: 'new row violates row-level security policy for table "rs_notes"',
    });
  });

  it("cannot update or delete another user's rows", async () => {
    const bob = userClient(BOB);
    const update = await bob.from('rs_notes').update({ body: 'hacked' }).eq('body', 'alice private').select();
    expect(update.data).toEqual([]);
    const del = await bob.from('rs_notes').delete().eq('body', 'alice public').select();
    expect(del.data).toEqual([]);
    const rows = await sql<{ body: string }>(`select body from public.rs_notes where owner = $1 order by body`, [
      ALICE,
    ]);
    expect(rows.map((r) => r.body)).toEqual(['alice private', 'alice public']);
  });

  it('lets the service role bypass RLS', async () => {
    const { data, count } = await serviceClient()
      .from('rs_notes')
      .select('body', { count: 'exact' })
      .in('body', ['alice private', 'bob private']);
    expect(bodies(data)).toEqual(['alice private', 'bob private']);
    expect(count).toBe(2);
  });

  it('answers a missing privilege with 401 for anon and 403 for a user', async () => {
    const anon = await anonClient().from('rs_secret').select();
    expect(anon.status).toBe(401);
    expect(anon.error).toMatchObject({ code: '42501', message: 'permission denied for table rs_secret' });
    const user = await userClient(ALICE).from('rs_secret').select();
    expect(user.status).toBe(403);
  });
});

describe('tokens', () => {
  const { jwtSecret } = backendInfo();

  it('refuses a forged or malformed JWT with PGRST301', async () => {
    const forged = signJwt({ role: 'service_role' }, 'another-secret-that-is-at-least-32-characters');
    for (const token of [forged, 'not.a.jwt', 'garbage']) {
      const res = await rest('/rs_notes', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      const body = await json(res);
      expect(body).toMatchObject({ code: 'PGRST301', details: null, hint: null });
    }
  });

  it('refuses an expired JWT with PGRST303 "JWT expired"', async () => {
    const expired = signJwt({ sub: ALICE, role: 'authenticated', exp: Math.floor(Date.now() / 1000) - 10 }, jwtSecret);
    const res = await rest('/rs_notes', { headers: { authorization: `Bearer ${expired}` } });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ code: 'PGRST303', details: null, hint: null, message: 'JWT expired' });
  });

  it('refuses a valid signature claiming a role that is not a request role', async () => {
    const superuser = signJwt({ role: 'postgres' }, jwtSecret);
    const res = await rest('/rs_notes', { headers: { authorization: `Bearer ${superuser}` } });
    expect(res.status).toBe(401);
  });

  it('accepts a user token passed as a raw header', async () => {
    const res = await rest('/rs_notes?select=body&body=eq.alice%20private', {
      headers: { authorization: `Bearer ${userToken(ALICE)}` },
    });
    expect(await json(res)).toEqual([{ body: 'alice private' }]);
  });
});

describe('schema cache and profiles', () => {
  it('reports unknown tables (PGRST205) and columns (42703)', async () => {
    const table = await anonClient().from('rs_nothing').select();
    expect(table.status).toBe(404);
    expect(table.error).toMatchObject({
      code: 'PGRST205',
      message: "Could not find the table 'public.rs_nothing' in the schema cache",
    });
    const column = await anonClient().from('rs_notes').select('nope');
    expect(column.status).toBe(400);
    expect(column.error).toMatchObject({ code: '42703', message: 'column rs_notes.nope does not exist' });
  });

  it('refuses a schema that is not exposed with 406 PGRST106', async () => {
    const res = await anonClient().schema('auth').from('users').select();
    expect(res.status).toBe(406);
    expect(res.error).toMatchObject({ code: 'PGRST106', message: 'The schema must be one of the following: public' });
    const write = await rest('/rs_notes', {
      method: 'POST',
      headers: { 'content-profile': 'storage', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(write.status).toBe(406);
  });

  it('follows DDL: a new column is selectable right after ALTER TABLE', async () => {
    await sql('alter table public.rs_notes add column if not exists mood text');
    const res = await serviceClient().from('rs_notes').select('mood').limit(1);
    expect(res.error).toBeNull();
    expect(res.data).toEqual([{ mood: null }]);
  });

  it('finds a column added right after another request missed (the miss reload is not a refusal)', async () => {
    const miss = await serviceClient().from('rs_notes').select('not_there_yet_either');
    expect(miss.error).toMatchObject({ code: '42703' });
    await sql('alter table public.rs_notes add column if not exists tone text');
    const res = await serviceClient().from('rs_notes').select('tone').limit(1);
    expect(res.error).toBeNull();
    expect(res.data).toEqual([{ tone: null }]);
  });
});

describe('hostile input', () => {
  const hostile: [string, number][] = [
    ['/rs_notes?select=id,body;drop table public.rs_notes', 400],
    ['/rs_notes?select=id::text union select 1', 400],
    ['/rs_notes?select="id""; drop table x; --"', 400],
    ["/rs_notes?select=body->>'a'", 400],
    ['/rs_notes?order=id;drop table public.rs_notes', 400],
    ['/rs_notes?order=nope.desc', 400],
    ['/rs_notes?id;drop=eq.1', 400],
    ['/rs_notes?id=zz.1', 400],
    ['/rs_notes?id=eq.1;drop table public.rs_notes', 400],
    ['/rs_notes?id=in.(1,2', 400],
    ['/rs_notes?or=(id.eq.1', 400],
    ['/rs_notes?or=id.eq.1)', 400],
    ['/rs_notes?and=(id.eq.1,or(body.eq.x)', 400],
    ["/rs_notes?body=fts(english');drop).x", 400],
    ['/rs_notes?limit=ten', 400],
    ['/rs_notes?offset=-1', 400],
    ['/rs_notes?select=*,rs_secret(*)', 400],
    ['/rs_notes?rs_secret.id=eq.1', 400],
    ["/rs_notes?body=eq.'; delete from public.rs_notes; --", 200],
    ['/rs_notes?body=like.%25%27%29%3B', 200],
    ['/rs_notes?id=eq.not-a-number', 400],
    ['/rs_notes?body=in.("a\\"b",")(")', 200],
  ];

  it.each(hostile)('answers %s with %i', async (path, status) => {
    const res = await rest(path.replace(/ /g, '%20'), {
      headers: { authorization: `Bearer ${backendInfo().serviceRoleKey}` },
    });
    expect(res.status).toBe(status);
    const body = await json<{ code?: string }>(res);
    if (status >= 400) expect(typeof body.code).toBe('string');
  });

  it('handles 10 kB values and hostile on_conflict/columns without a 5xx', async () => {
    const service = { authorization: `Bearer ${backendInfo().serviceRoleKey}`, 'content-type': 'application/json' };
    const big = await rest(`/rs_notes?body=eq.${'x'.repeat(10_000)}`, { headers: service });
    expect(big.status).toBe(200);
    const onConflict = await rest('/rs_notes?on_conflict=id);drop table public.rs_notes;--', {
      method: 'POST',
      headers: { ...service, prefer: 'resolution=merge-duplicates' },
      body: JSON.stringify({ body: 'x', owner: ALICE }),
    });
    expect(onConflict.status).toBe(400);
    const columns = await rest('/rs_notes?columns=body,"x;drop table public.rs_notes"', {
      method: 'POST',
      headers: service,
      body: JSON.stringify({ body: 'x' }),
    });
    expect(columns.status).toBe(400);
    expect((await json(columns)).code).toBe('PGRST204');
    const key = await rest('/rs_notes', {
      method: 'POST',
      headers: service,
      body: JSON.stringify({ 'body"); drop table x; --': 1 }),
    });
    expect(key.status).toBe(400);
    const patchArray = await rest('/rs_notes?id=eq.1', { method: 'PATCH', headers: service, body: '[1,2]' });
    expect(patchArray.status).toBe(400);
    const scalar = await rest('/rs_notes', { method: 'POST', headers: service, body: '42' });
    expect(scalar.status).toBe(400);
    const deepJson = await rest('/rs_notes', {
      method: 'POST',
      headers: service,
      body: `{"body":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
    });
    expect(deepJson.status).toBe(400);
    const deepSelect = await rest(`/rs_notes?select=${'a('.repeat(2000)}id${')'.repeat(2000)}`, { headers: service });
    expect(deepSelect.status).toBe(400);
    const deepOr = await rest(`/rs_notes?or=(${'or('.repeat(2000)}id.eq.1${')'.repeat(2000)})`, { headers: service });
    expect(deepOr.status).toBe(400);
    const manyValues = await rest(
      `/rs_notes?select=id&id=in.(${Array.from({ length: 2000 }, (_, i) => i).join(',')})`,
      { headers: service },
    );
    expect(manyValues.status).toBe(200);
  });

  it('never answers random query strings with a 5xx, and the data stays intact', async () => {
    const before = await sql<{ n: string }>('select count(*) as n from public.rs_notes');
    const alphabet = fc.constantFrom(...'abid,.()*:!->"\'; =&%$_\\{}[]0123456789'.split(''));
    const text = fc.array(alphabet, { maxLength: 30 }).map((a) => a.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('select', 'order', 'id', 'body', 'or', 'and', 'limit', 'rs_secret.id', 'not.or'),
        text,
        async (key, value) => {
          const res = await rest(`/rs_notes?${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
          expect(res.status).toBeLessThan(500);
          await res.arrayBuffer();
        },
      ),
      { numRuns: 150 },
    );
    const after = await sql<{ n: string }>('select count(*) as n from public.rs_notes');
    expect(after[0]?.n).toBe(before[0]?.n);
  });
});

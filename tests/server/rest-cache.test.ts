import { describe, expect, it } from 'vitest';
import { anonClient, serviceClient, signedInClient } from '../setup/clients.ts';
import { arrange, json, rest, sql } from './rest/helpers.ts';

async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

describe('schema cache', () => {
  it('reloads on NOTIFY pgrst, also after its LISTEN connection was killed', async () => {
    await arrange(
      `create table if not exists public.rc_parent (id int primary key);
      create table if not exists public.rc_child (id int primary key, a_id int references public.rc_parent(id), b_id int);
      insert into public.rc_parent values (1) on conflict do nothing;
      insert into public.rc_child values (1, 1, 1) on conflict do nothing;
      grant select on public.rc_parent, public.rc_child to service_role;`,
      'rc_child',
    );
    const before = await serviceClient().from('rc_parent').select('id, rc_child(id)');
    expect(before.data).toEqual([{ id: 1, rc_child: [{ id: 1 }] }]);
    const killed = await sql<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where query = 'listen pgrst' and pid <> pg_backend_pid()`,
      [],
      // The LISTEN connection is the platform's (supabase_admin): only a superuser ends it.
      true,
    );
    expect(killed[0]?.n).toBeGreaterThan(0);
    // A second foreign key makes the embed ambiguous: only a reloaded cache knows it (no miss to trigger a reload).
    await sql(
      `alter table public.rc_child add constraint rc_child_b_fk foreign key (b_id) references public.rc_parent(id)`,
    );
    await eventually(async () => (await serviceClient().from('rc_parent').select('id, rc_child(id)')).status === 300);
    const after = await serviceClient().from('rc_parent').select('id, rc_child!rc_child_b_fk(id)');
    expect(after.data).toEqual([{ id: 1, rc_child: [{ id: 1 }] }]);
    await eventually(async () => (await sql(`select 1 from pg_stat_activity where query = 'listen pgrst'`)).length > 0);
  });

  it('serves a table created a moment ago (no 404 while the reload is under way)', async () => {
    const name = `rc_fresh_${Date.now()}`;
    await sql(
      `create table public.${name} (id int primary key); insert into public.${name} values (7); grant select on public.${name} to anon;`,
    );
    const res = await rest(`/${name}?select=id`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([{ id: 7 }]);
  });
});

describe('root', () => {
  it('describes the exposed tables and functions as OpenAPI 2.0', async () => {
    await arrange(
      'create table if not exists public.rc_described (id int primary key, label text not null)',
      'rc_described',
    );
    const res = await rest('/');
    expect(res.status).toBe(200);
    const doc = await json<{
      swagger: string;
      paths: Record<string, unknown>;
      definitions: Record<string, { properties: Record<string, unknown>; required: string[] }>;
    }>(res);
    expect(doc.swagger).toBe('2.0');
    expect(doc.paths['/rc_described']).toBeDefined();
    expect(doc.definitions.rc_described?.required).toEqual(['id', 'label']);
    expect(doc.definitions.rc_described?.properties.label).toMatchObject({ type: 'string', format: 'text' });
  });
});

describe('through the real auth service', () => {
  it('runs a signed-in user as authenticated with their sub', async () => {
    await arrange(
      `create table if not exists public.rc_mine (id serial primary key, owner uuid default auth.uid(), v text);
      alter table public.rc_mine enable row level security;
      drop policy if exists rc_mine_all on public.rc_mine;
      create policy rc_mine_all on public.rc_mine for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
      grant select, insert, update, delete on public.rc_mine to anon, authenticated;
      grant usage on sequence public.rc_mine_id_seq to authenticated;`,
      'rc_mine',
    );
    const { client, user } = await signedInClient('rest');
    const inserted = await client.from('rc_mine').insert({ v: 'mine' }).select('owner, v').single();
    expect(inserted.error).toBeNull();
    expect(inserted.data).toEqual({ owner: user.id, v: 'mine' });
    const other = await signedInClient('rest-other');
    expect((await other.client.from('rc_mine').select('v')).data).toEqual([]);
    expect((await anonClient().from('rc_mine').select('v')).data).toEqual([]);
  });
});

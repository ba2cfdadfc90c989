import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineIn, projectFor, type Team } from '../adapters/machines-fixtures.ts';
import { anonClient, backendInfo, type AnyClient } from '../setup/clients.ts';
import { callerClients, callerIds, teamMachine, type Caller } from './rls-callers.ts';

/**
 * Named versions under row level security, from the outside (bad input and safety):
 * through supabase-js and through raw HTTP as PostgREST answers it. Whoever may read the
 * project reads its versions; owners and editors name one; guests, viewers, outsiders
 * and anon cannot; who named it, or an owner, deletes it. Bad names, a name taken and a
 * seq beyond the log are refused with their own message, and nothing is written.
 */

const ACTORS: Caller[] = ['anon', 'outsider', 'viewer', 'editor', 'owner', 'service'];
const readers = new Set<Caller>(['viewer', 'editor', 'owner', 'service']);
const namers = new Set<Caller>(['editor', 'owner', 'service']);

let t: Team;
let db: pg.Client;
let project: string;
let machine: string;
const clients = {} as Record<Caller, AnyClient>;
const ids = {} as Record<Caller, string | undefined>;

const renameOp = (name: string) => ({ type: 'machine.update', changes: { name } });

beforeAll(async () => {
  ({ t, db, project, machine } = await teamMachine());
  Object.assign(clients, callerClients(t));
  Object.assign(ids, callerIds(t));
  // Three ops in the log: versions may name seq 0..3.
  const commit = await t.owner.client.rpc('commit_machine_ops', {
    p_machine: machine,
    p_client_id: 'test',
    p_batch_id: randomUUID(),
    p_ops: [renameOp('a'), renameOp('b'), renameOp('c')],
  });
  if (commit.error) throw new Error(commit.error.message);
});

afterAll(async () => {
  await db.end();
});

const row = (actor: Caller, name: string, seq = 2) => ({
  machine_id: machine,
  name,
  seq,
  ...(actor === 'service' ? {} : { created_by: ids[actor] ?? null }),
});

const stored = async (name: string): Promise<number> =>
  (await db.query('select 1 from public.machine_versions where name = $1', [name])).rowCount ?? 0;

describe('naming a version', () => {
  it.each(ACTORS)('as %s', async (actor) => {
    const name = `v by ${actor}`;
    const saved = await clients[actor]
      .from('machine_versions')
      .insert(row(actor, name))
      .select('name, seq, project_id');
    if (!namers.has(actor)) {
      // Anon may not insert at all and RLS says no to a viewer; an outsider cannot see the machine.
      expect(saved.error?.code).toBe(actor === 'outsider' ? 'PT404' : '42501');
      expect(await stored(name)).toBe(0);
      return;
    }
    expect(saved.error).toBeNull();
    expect(saved.data).toEqual([{ name, seq: 2, project_id: project }]);
  });

  it.each(ACTORS)('reading as %s', async (actor) => {
    const read = await clients[actor].from('machine_versions').select('name').eq('machine_id', machine);
    expect(read.error).toBeNull();
    const names = (read.data as { name: string }[]).map((r) => r.name);
    if (readers.has(actor)) expect(names).toContain('v by owner');
    else expect(names).toEqual([]);
  });

  it('refuses a guest who joined by share link, who still reads', async () => {
    const linked = await projectFor(t, 'public');
    const linkedMachine = await machineIn(t, linked, 'linked door');
    expect(
      (await t.owner.client.from('machine_versions').insert({ machine_id: linkedMachine, name: 'start', seq: 0 }))
        .error,
    ).toBeNull();
    const guest = anonClient();
    expect((await guest.auth.signInAnonymously()).error).toBeNull();
    const token = await t.owner.client
      .rpc('owned_share_tokens', { p_project: linked })
      .single<{ share_token: string }>();
    expect((await guest.rpc('join_shared_project', { p_token: token.data?.share_token ?? '' })).error).toBeNull();
    const refused = await guest
      .from('machine_versions')
      .insert({ machine_id: linkedMachine, name: 'by guest', seq: 0 });
    expect(refused.error?.code).toBe('42501');
    expect(await stored('by guest')).toBe(0);
    const read = await guest.from('machine_versions').select('name').eq('machine_id', linkedMachine);
    expect(read.data).toEqual([{ name: 'start' }]);
  });
});

describe('bad input', () => {
  const owner = () => clients.owner;
  it.each([
    ['an empty name', '', 2, '22023', 'a version needs a name'],
    ['a blank name', '   ', 2, '22023', 'a version needs a name'],
    ['a name too long', 'x'.repeat(201), 2, '22023', "a version's name is at most 200 characters (this one has 201)"],
    ['a seq beyond the log', 'far', 4, '22023', "seq 4 is beyond the log's head 3"],
    ['a negative seq', 'before', -1, '22023', 'a version names a position in the log: seq must be 0 or more'],
  ])('refuses %s', async (_, name, seq, code, message) => {
    const r = await owner().from('machine_versions').insert({ machine_id: machine, name, seq, created_by: t.owner.id });
    expect(r.error).toMatchObject({ code, message });
    expect(r.status).toBe(400);
    expect(await stored(name)).toBe(0);
    expect(await stored(name.trim())).toBe(0);
  });

  it('refuses a name the machine already has, trimmed', async () => {
    const r = await owner()
      .from('machine_versions')
      .insert({ machine_id: machine, name: '  v by owner ', seq: 1, created_by: t.owner.id });
    expect(r.error).toMatchObject({ code: '23505', message: 'this machine already has a version named "v by owner"' });
    expect(r.status).toBe(409);
    const count = await db.query(
      'select count(*)::int as n from public.machine_versions where machine_id = $1 and name = $2',
      [machine, 'v by owner'],
    );
    expect(count.rows[0]).toEqual({ n: 1 });
  });

  it('refuses a machine that does not exist', async () => {
    const r = await owner()
      .from('machine_versions')
      .insert({ machine_id: randomUUID(), name: 'x', seq: 0, created_by: t.owner.id });
    expect(r.error).toMatchObject({ code: 'PT404', message: 'machine not found' });
  });

  it('refuses a project column smuggled in (the machine decides the project)', async () => {
    const other = await projectFor(t);
    const r = await owner()
      .from('machine_versions')
      .insert({ machine_id: machine, name: 'smuggled', seq: 0, created_by: t.owner.id, project_id: other } as never);
    expect(r.error?.code).toBe('42501');
    expect(await stored('smuggled')).toBe(0);
  });

  it('answers raw HTTP in PostgREST shape, and writes nothing', async () => {
    const { url, anonKey } = backendInfo();
    const token = (await t.editor.client.auth.getSession()).data.session?.access_token ?? '';
    const post = (body: unknown, key = token) =>
      fetch(`${url}/rest/v1/machine_versions`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const far = await post({ machine_id: machine, name: 'raw far', seq: 99 });
    expect(far.status).toBe(400);
    expect(await far.json()).toMatchObject({ code: '22023', message: "seq 99 is beyond the log's head 3" });
    const viewerToken = (await t.viewer.client.auth.getSession()).data.session?.access_token ?? '';
    const byViewer = await post({ machine_id: machine, name: 'raw viewer', seq: 1 }, viewerToken);
    expect(byViewer.status).toBe(403);
    expect(await byViewer.json()).toMatchObject({ code: '42501' });
    const byAnon = await post({ machine_id: machine, name: 'raw anon', seq: 1 }, anonKey);
    expect(byAnon.status).toBe(401);
    expect(await byAnon.json()).toMatchObject({ code: '42501' });
    const ok = await post({ machine_id: machine, name: 'raw ok', seq: 3 });
    expect(ok.status).toBe(201);
    expect([
      await stored('raw far'),
      await stored('raw viewer'),
      await stored('raw anon'),
      await stored('raw ok'),
    ]).toEqual([0, 0, 0, 1]);
  });
});

describe('deleting', () => {
  const named = async (client: AnyClient, name: string): Promise<string> => {
    const r = await client
      .from('machine_versions')
      .insert({ machine_id: machine, name, seq: 1 })
      .select('id')
      .single<{ id: string }>();
    if (r.error) throw new Error(r.error.message);
    return r.data.id;
  };
  const remove = (client: AnyClient, id: string) => client.from('machine_versions').delete().eq('id', id).select('id');

  it("lets who named it delete it, not another editor or a viewer; an owner deletes anyone's", async () => {
    const mine = await named(t.editor.client, 'editor keeps');
    expect((await remove(t.viewer.client, mine)).data).toEqual([]);
    expect((await remove(t.outsider.client, mine)).data).toEqual([]);
    expect(await stored('editor keeps')).toBe(1);
    expect((await remove(t.editor.client, mine)).data).toEqual([{ id: mine }]);
    expect(await stored('editor keeps')).toBe(0);

    const owners = await named(t.owner.client, 'owner names');
    expect((await remove(t.editor.client, owners)).data).toEqual([]);
    expect(await stored('owner names')).toBe(1);
    const editors = await named(t.editor.client, 'owner removes');
    expect((await remove(t.owner.client, editors)).data).toEqual([{ id: editors }]);
  });
});

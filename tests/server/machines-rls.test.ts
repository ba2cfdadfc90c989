import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { emptyDefinition, machineIn, projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, anonClient, serviceClient, type AnyClient } from '../setup/clients.ts';

/**
 * Machines and their op log under row level security, every kind of caller against
 * every operation, through supabase-js: members read, editors and owners write, viewers
 * never write, ops enter only through commit_machine_ops and are never changed.
 */

type Actor = 'anon' | 'outsider' | 'viewer' | 'editor' | 'owner' | 'service';
const ACTORS: Actor[] = ['anon', 'outsider', 'viewer', 'editor', 'owner', 'service'];
const allow = (...actors: Actor[]) => new Set<Actor>(actors);
const readers = allow('viewer', 'editor', 'owner', 'service');
const writers = allow('editor', 'owner', 'service');

interface Result {
  data: unknown;
  error: { code?: string; message: string; details?: string } | null;
}

let t: Team;
const clients = {} as Record<Actor, AnyClient>;

beforeAll(async () => {
  t = await team();
  Object.assign(clients, {
    anon: anonClient(),
    outsider: t.outsider.client,
    viewer: t.viewer.client,
    editor: t.editor.client,
    owner: t.owner.client,
    service: serviceClient(),
  });
});

function rows(result: Result): unknown[] {
  if (result.error) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.data as unknown[];
}

function expectRefused(result: Result): void {
  if (result.error) expect(result.error.code).toBe('42501');
  else expect(result.data).toEqual([]);
}

function commit(client: AnyClient, machine: string, base: number, ops: unknown[], batch = randomUUID()) {
  return client.rpc('commit_machine_ops', {
    p_machine: machine,
    p_base_version: base,
    p_client_id: 'test',
    p_batch_id: batch,
    p_ops: ops,
    p_definition: emptyDefinition(`after ${base}`),
  }) as unknown as Promise<Result>;
}

const renameOp = (key: string) => ({ type: 'machine.update', changes: { name: key } });

async function fixture() {
  const project = await projectFor(t);
  const machine = await machineIn(t, project);
  return { project, machine };
}

describe('machines', () => {
  it.each(ACTORS)('select as %s', async (actor) => {
    const { machine } = await fixture();
    const seen = rows(await clients[actor].from('machines').select('id, version').eq('id', machine));
    expect(seen).toEqual(readers.has(actor) ? [{ id: machine, version: 0 }] : []);
  });

  it.each(ACTORS)('insert as %s', async (actor) => {
    const { project } = await fixture();
    const row = { project_id: project, name: `by ${actor}`, definition: emptyDefinition(), ...(actor === 'service' ? { created_by: t.owner.id } : {}) };
    const result = await clients[actor].from('machines').insert(row).select('id, version, created_by');
    if (writers.has(actor)) {
      const [created] = rows(result) as { version: number; created_by: string }[];
      expect(created?.version).toBe(0);
      if (actor !== 'service') expect(created?.created_by).toBe(t[actor as 'editor' | 'owner'].id);
    } else {
      expect(result.error?.code).toBe('42501');
    }
  });

  it('a new machine starts at version 0 and is created by its caller', async () => {
    const { project } = await fixture();
    const later = await t.editor.client.from('machines').insert({ project_id: project, name: 'x', definition: {}, version: 5 });
    expect(later.error?.code).toBe('23514');
    const forged = await t.editor.client.from('machines').insert({ project_id: project, name: 'x', definition: {}, created_by: t.owner.id });
    expect(forged.error?.code).toBe('42501');
  });

  it.each(ACTORS)('rename as %s', async (actor) => {
    const { machine } = await fixture();
    const result = await clients[actor].from('machines').update({ name: `renamed by ${actor}` }).eq('id', machine).select('name');
    if (writers.has(actor)) expect(rows(result)).toEqual([{ name: `renamed by ${actor}` }]);
    else expectRefused(result);
  });

  it.each(['editor', 'owner'] as const)('%s cannot write the definition or version directly', async (actor) => {
    const { machine } = await fixture();
    const def = await clients[actor].from('machines').update({ definition: emptyDefinition('forged') }).eq('id', machine);
    expect(def.error?.code).toBe('42501');
    const version = await clients[actor].from('machines').update({ version: 9 }).eq('id', machine);
    expect(version.error?.code).toBe('42501');
  });

  it.each(ACTORS)('delete as %s', async (actor) => {
    const { machine } = await fixture();
    const result = await clients[actor].from('machines').delete().eq('id', machine).select('id');
    if (writers.has(actor)) expect(rows(result)).toEqual([{ id: machine }]);
    else expectRefused(result);
    const left = rows(await clients.service.from('machines').select('id').eq('id', machine));
    expect(left).toHaveLength(writers.has(actor) ? 0 : 1);
  });

  it('a public project\'s machines are readable by everyone, writable by its editors only', async () => {
    const project = await projectFor(t, 'public');
    const machine = await machineIn(t, project);
    for (const actor of ACTORS) {
      expect(rows(await clients[actor].from('machines').select('id').eq('id', machine))).toHaveLength(1);
    }
    expectRefused(await clients.outsider.from('machines').update({ name: 'nope' }).eq('id', machine).select('id'));
    expect((await commit(clients.outsider, machine, 0, [renameOp('x')])).error?.code).toBe('42501');
  });
});

describe('commit_machine_ops', () => {
  it.each(ACTORS)('commit as %s', async (actor) => {
    const { machine } = await fixture();
    const result = await commit(clients[actor], machine, 0, [renameOp('a'), renameOp('b')]);
    if (writers.has(actor)) {
      expect(result.error).toBeNull();
      expect(result.data).toEqual({ first_seq: 1, last_seq: 2, version: 2, duplicate: false });
    } else {
      // anon has no execute grant, viewers are refused; outsiders cannot see the machine.
      expect(result.error?.code).toBe(actor === 'outsider' ? 'P0002' : '42501');
    }
    const after = rows(await clients.service.from('machines').select('version').eq('id', machine));
    expect(after).toEqual([{ version: writers.has(actor) ? 2 : 0 }]);
  });

  it('stores the ops in order with author, client and batch, and the new snapshot', async () => {
    const { machine } = await fixture();
    const batch = randomUUID();
    expect((await commit(t.editor.client, machine, 0, [renameOp('a'), renameOp('b')], batch)).error).toBeNull();
    const ops = rows(await t.viewer.client.from('machine_ops').select('seq, author, client_id, batch_id, op').eq('machine_id', machine).order('seq'));
    expect(ops).toEqual([
      { seq: 1, author: t.editor.id, client_id: 'test', batch_id: batch, op: renameOp('a') },
      { seq: 2, author: t.editor.id, client_id: 'test', batch_id: batch, op: renameOp('b') },
    ]);
    const [row] = rows(await t.viewer.client.from('machines').select('definition, version').eq('id', machine)) as { definition: { name: string }; version: number }[];
    expect(row).toEqual({ definition: emptyDefinition('after 0'), version: 2 });
  });

  it('refuses a stale base with version_conflict and the current version', async () => {
    const { machine } = await fixture();
    expect((await commit(t.editor.client, machine, 0, [renameOp('a')])).error).toBeNull();
    const stale = await commit(t.owner.client, machine, 0, [renameOp('b')]);
    expect(stale.error?.code).toBe('CR409');
    expect(stale.error?.message).toBe('version_conflict');
    expect(JSON.parse(stale.error?.details ?? '{}')).toEqual({ current_version: 1 });
    const ahead = await commit(t.owner.client, machine, 7, [renameOp('b')]);
    expect(ahead.error?.code).toBe('CR409');
    expect(rows(await clients.service.from('machine_ops').select('seq').eq('machine_id', machine))).toHaveLength(1);
  });

  it('a retried batch returns its original range and writes nothing', async () => {
    const { machine } = await fixture();
    const batch = randomUUID();
    const first = await commit(t.editor.client, machine, 0, [renameOp('a'), renameOp('b')], batch);
    expect(first.data).toEqual({ first_seq: 1, last_seq: 2, version: 2, duplicate: false });
    expect((await commit(t.owner.client, machine, 2, [renameOp('c')])).error).toBeNull();
    // The retry still carries the base it was first sent with.
    const retry = await commit(t.editor.client, machine, 0, [renameOp('a'), renameOp('b')], batch);
    expect(retry.error).toBeNull();
    expect(retry.data).toEqual({ first_seq: 1, last_seq: 2, version: 3, duplicate: true });
    expect(rows(await clients.service.from('machine_ops').select('seq').eq('machine_id', machine))).toHaveLength(3);
  });

  it('concurrent commits on one base: exactly one wins, the log has no gap', async () => {
    const { machine } = await fixture();
    const results = await Promise.all([t.editor.client, t.owner.client, t.editor.client, t.owner.client].map((c, i) => commit(c, machine, 0, [renameOp(`c${i}`)])));
    expect(results.filter((r) => r.error === null)).toHaveLength(1);
    expect(results.filter((r) => r.error?.code === 'CR409')).toHaveLength(3);
    expect(rows(await clients.service.from('machine_ops').select('seq').eq('machine_id', machine))).toEqual([{ seq: 1 }]);
  });

  it.each([
    ['an empty batch', []],
    ['a batch that is not an array', { type: 'x' }],
    ['an op without a type', [{ id: 's_1' }]],
    ['an op that is not an object', [42]],
  ])('refuses %s with 22023 and writes nothing', async (_, ops) => {
    const { machine } = await fixture();
    const result = await t.editor.client.rpc('commit_machine_ops', {
      p_machine: machine, p_base_version: 0, p_client_id: 'test', p_batch_id: randomUUID(), p_ops: ops, p_definition: {},
    });
    expect(result.error?.code).toBe('22023');
    expect(rows(await clients.service.from('machines').select('version').eq('id', machine))).toEqual([{ version: 0 }]);
  });

  it('an unknown machine is not found', async () => {
    const result = await commit(t.editor.client, randomUUID(), 0, [renameOp('a')]);
    expect(result.error?.code).toBe('P0002');
  });
});

describe('machine_ops', () => {
  async function committed() {
    const f = await fixture();
    const batch = randomUUID();
    const result = await commit(t.editor.client, f.machine, 0, [renameOp('a')], batch);
    expect(result.error).toBeNull();
    return { ...f, batch };
  }

  it.each(ACTORS)('select as %s', async (actor) => {
    const { machine } = await committed();
    const seen = rows(await clients[actor].from('machine_ops').select('seq').eq('machine_id', machine));
    expect(seen).toEqual(readers.has(actor) ? [{ seq: 1 }] : []);
  });

  it.each(ACTORS.filter((a) => a !== 'service'))('insert directly as %s: refused', async (actor) => {
    const { machine } = await committed();
    const result = await clients[actor].from('machine_ops').insert({ machine_id: machine, seq: 2, client_id: 'x', batch_id: randomUUID(), op: renameOp('z') });
    expect(result.error?.code).toBe('42501');
  });

  it.each(ACTORS.filter((a) => a !== 'service'))('update or delete as %s: refused, the log is append-only', async (actor) => {
    const { machine } = await committed();
    const updated = await clients[actor].from('machine_ops').update({ op: renameOp('forged') }).eq('machine_id', machine).select('seq');
    expect(updated.error?.code).toBe('42501');
    const deleted = await clients[actor].from('machine_ops').delete().eq('machine_id', machine).select('seq');
    expect(deleted.error?.code).toBe('42501');
    const log = rows(await clients.service.from('machine_ops').select('op').eq('machine_id', machine));
    expect(log).toEqual([{ op: renameOp('a') }]);
  });

  it('deleting a machine takes its log with it', async () => {
    const { machine } = await committed();
    rows(await t.editor.client.from('machines').delete().eq('id', machine).select('id'));
    const db = await adminDb();
    try {
      const left = await db.query('select count(*)::int as n from public.machine_ops where machine_id = $1', [machine]);
      expect(left.rows[0]).toEqual({ n: 0 });
    } finally {
      await db.end();
    }
  });

  it('both tables stream changes', async () => {
    const db = await adminDb();
    try {
      const published = await db.query<{ tablename: string }>(
        `select tablename from pg_publication_tables where pubname = 'supabase_realtime' and tablename in ('machines', 'machine_ops') order by 1`,
      );
      expect(published.rows.map((r) => r.tablename)).toEqual(['machine_ops', 'machines']);
    } finally {
      await db.end();
    }
  });
});

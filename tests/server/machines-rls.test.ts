import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { emptyDefinition, machineIn, projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, type AnyClient } from '../setup/clients.ts';
import { callerClients, type Caller, type Result } from './rls-callers.ts';

/**
 * Machines and their op log under row level security and column grants, every kind of
 * caller against every operation, through supabase-js: members read, editors and owners
 * write names and append ops, viewers never write, ops enter only through
 * commit_machine_ops (appended at the head, never refused for being behind) and are
 * never changed, and only the service role (the checkpoint code) writes a definition.
 */

type Actor = Caller;
const ACTORS: Actor[] = ['anon', 'outsider', 'viewer', 'editor', 'owner', 'service'];
const allow = (...actors: Actor[]) => new Set<Actor>(actors);
const readers = allow('viewer', 'editor', 'owner', 'service');
const writers = allow('editor', 'owner', 'service');

let t: Team;
const clients = {} as Record<Actor, AnyClient>;

beforeAll(async () => {
  t = await team();
  Object.assign(clients, callerClients(t));
});

function rows(result: Result): unknown[] {
  if (result.error) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.data as unknown[];
}

function expectRefused(result: Result): void {
  if (result.error) expect(result.error.code).toBe('42501');
  else expect(result.data).toEqual([]);
}

function commit(
  client: AnyClient,
  machine: string,
  ops: unknown,
  batch = randomUUID(),
  extra: Record<string, unknown> = {},
) {
  return client.rpc('commit_machine_ops', {
    p_machine: machine,
    p_client_id: 'test',
    p_batch_id: batch,
    p_ops: ops,
    ...extra,
  } as never) as unknown as Promise<Result>;
}

async function logOf(machine: string): Promise<number[]> {
  return (
    rows(await clients.service.from('machine_ops').select('seq').eq('machine_id', machine).order('seq')) as {
      seq: number;
    }[]
  ).map((r) => r.seq);
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
    const row = {
      project_id: project,
      name: `by ${actor}`,
      ...(actor === 'service' ? { created_by: t.owner.id, definition: emptyDefinition() } : {}),
    };
    const result = await clients[actor].from('machines').insert(row).select('id, version, created_by');
    if (writers.has(actor)) {
      const [created] = rows(result) as { version: number; created_by: string }[];
      expect(created?.version).toBe(0);
      if (actor !== 'service') expect(created?.created_by).toBe(t[actor as 'editor' | 'owner'].id);
    } else {
      expect(result.error?.code).toBe('42501');
    }
  });

  it('a new machine starts from the bare root at version 0, created by its caller; its content becomes op 1', async () => {
    const { project } = await fixture();
    const withDefinition = await t.editor.client
      .from('machines')
      .insert({ project_id: project, name: 'x', definition: emptyDefinition('content') })
      .select('id')
      .single();
    expect(withDefinition.error).toBeNull();
    const id = (withDefinition.data as { id: string }).id;
    expect(rows(await clients.service.from('machines').select('version, definition').eq('id', id))).toEqual([
      { version: 0, definition: emptyDefinition() },
    ]);
    expect(rows(await clients.service.from('machine_ops').select('seq, op').eq('machine_id', id))).toEqual([
      { seq: 1, op: { type: 'machine.replace', definition: emptyDefinition('content') } },
    ]);
    const later = await t.editor.client.from('machines').insert({ project_id: project, name: 'x', version: 5 });
    expect(later.error?.code).toBe('42501');
    const forged = await t.editor.client
      .from('machines')
      .insert({ project_id: project, name: 'x', created_by: t.owner.id });
    expect(forged.error?.code).toBe('42501');
    const plain = await t.editor.client
      .from('machines')
      .insert({ project_id: project, name: 'plain' })
      .select('version, definition')
      .single();
    expect(plain.data).toMatchObject({
      version: 0,
      definition: { root: 's_root', states: { s_root: { parent: null, children: [] } } },
    });
  });

  it.each(ACTORS)('rename as %s', async (actor) => {
    const { machine } = await fixture();
    const result = await clients[actor]
      .from('machines')
      .update({ name: `renamed by ${actor}` })
      .eq('id', machine)
      .select('name');
    if (writers.has(actor)) expect(rows(result)).toEqual([{ name: `renamed by ${actor}` }]);
    else expectRefused(result);
  });

  it.each(['editor', 'owner'] as const)('%s cannot write the definition or version directly', async (actor) => {
    const { machine } = await fixture();
    const def = await clients[actor]
      .from('machines')
      .update({ definition: emptyDefinition('forged') })
      .eq('id', machine);
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

  it("a public project's machines are readable by everyone, writable by its editors only", async () => {
    const project = await projectFor(t, 'public');
    const machine = await machineIn(t, project);
    for (const actor of ACTORS) {
      expect(rows(await clients[actor].from('machines').select('id').eq('id', machine))).toHaveLength(1);
    }
    expectRefused(await clients.outsider.from('machines').update({ name: 'nope' }).eq('id', machine).select('id'));
    expect((await commit(clients.outsider, machine, [renameOp('x')])).error?.code).toBe('42501');
  });
});

describe('commit_machine_ops', () => {
  // The append checks rights in one statement of its own (20261127000300_cheaper_append.sql);
  // it must say what the project's rights functions say, for every caller and visibility.
  it.each(['private', 'link', 'public'] as const)(
    'on a %s project, refuses exactly whom can_read_project / can_edit_project refuse',
    async (visibility) => {
      const project = await projectFor(t);
      if (visibility !== 'private') {
        const set = await t.owner.client.from('projects').update({ visibility }).eq('id', project).select('id');
        expect(rows(set)).toHaveLength(1);
      }
      const machine = await machineIn(t, project);
      const signedIn = ACTORS.filter((a) => a !== 'anon' && a !== 'service');
      for (const actor of signedIn) {
        const canRead = await clients[actor].rpc('can_read_project', { p_project: project } as never);
        const canEdit = await clients[actor].rpc('can_edit_project', { p_project: project } as never);
        expect(canRead.error).toBeNull();
        expect(canEdit.error).toBeNull();
        const expected = canRead.data !== true ? 'P0002' : canEdit.data !== true ? '42501' : null;
        const result = await commit(clients[actor], machine, [renameOp(actor)]);
        expect({ actor, code: result.error?.code ?? null }).toEqual({ actor, code: expected });
      }
      // The editor and the owner appended; nobody else did.
      expect(await logOf(machine)).toEqual([1, 2]);
    },
  );

  it.each(ACTORS)('append as %s', async (actor) => {
    const { machine } = await fixture();
    const result = await commit(clients[actor], machine, [renameOp('a'), renameOp('b')]);
    if (writers.has(actor)) {
      expect(result.error).toBeNull();
      // Two ops past the checkpoint: not yet due (checkpoints come every 100 ops).
      expect(result.data).toEqual({ first_seq: 1, last_seq: 2, version: 2, duplicate: false, checkpoint_due: false });
    } else {
      // anon has no execute grant, viewers are refused; outsiders cannot see the machine.
      expect(result.error?.code).toBe(actor === 'outsider' ? 'P0002' : '42501');
    }
    expect(await logOf(machine)).toEqual(writers.has(actor) ? [1, 2] : []);
  });

  it('stores the ops in order with author, client and batch; the checkpoint is not touched', async () => {
    const { machine } = await fixture();
    const before = rows(
      await clients.service.from('machines').select('definition, version, updated_at').eq('id', machine),
    );
    const batch = randomUUID();
    expect((await commit(t.editor.client, machine, [renameOp('a'), renameOp('b')], batch)).error).toBeNull();
    const ops = rows(
      await t.viewer.client
        .from('machine_ops')
        .select('seq, author, client_id, batch_id, op')
        .eq('machine_id', machine)
        .order('seq'),
    );
    expect(ops).toEqual([
      { seq: 1, author: t.editor.id, client_id: 'test', batch_id: batch, op: renameOp('a') },
      { seq: 2, author: t.editor.id, client_id: 'test', batch_id: batch, op: renameOp('b') },
    ]);
    expect(
      rows(await clients.service.from('machines').select('definition, version, updated_at').eq('id', machine)),
    ).toEqual(before);
  });

  it('never refuses for being behind: each append lands at the head', async () => {
    const { machine } = await fixture();
    expect((await commit(t.editor.client, machine, [renameOp('a')])).data).toMatchObject({ first_seq: 1, last_seq: 1 });
    expect((await commit(t.owner.client, machine, [renameOp('b')])).data).toMatchObject({
      first_seq: 2,
      last_seq: 2,
      version: 2,
    });
    expect(await logOf(machine)).toEqual([1, 2]);
  });

  it.each([
    ['definition', { p_definition: emptyDefinition('forged') }],
    ['version', { p_version: 99 }],
    ['base version', { p_base_version: 0 }],
    ['seq', { p_seq: 7 }],
  ])('refuses a forged %s clearly and stores nothing', async (_, extra) => {
    const { machine } = await fixture();
    const result = await commit(t.editor.client, machine, [renameOp('a')], randomUUID(), extra);
    expect(result.error?.code).toBe('42501');
    expect(result.error?.message).toBe(
      "the server computes a machine's definition, version and seq numbers: send only ops",
    );
    expect(await logOf(machine)).toEqual([]);
  });

  it('a retried batch returns its original range and writes nothing', async () => {
    const { machine } = await fixture();
    const batch = randomUUID();
    const first = await commit(t.editor.client, machine, [renameOp('a'), renameOp('b')], batch);
    expect(first.data).toMatchObject({ first_seq: 1, last_seq: 2, version: 2, duplicate: false });
    expect((await commit(t.owner.client, machine, [renameOp('c')])).error).toBeNull();
    const retry = await commit(t.editor.client, machine, [renameOp('a'), renameOp('b')], batch);
    expect(retry.error).toBeNull();
    expect(retry.data).toMatchObject({ first_seq: 1, last_seq: 2, version: 3, duplicate: true });
    expect(await logOf(machine)).toEqual([1, 2, 3]);
  });

  it('concurrent appends all land, in one gapless order, each batch stored once', async () => {
    const { machine } = await fixture();
    const batches = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const senders = [t.editor.client, t.owner.client, t.editor.client, t.owner.client];
    // Each batch sent twice at once: a retry racing its original.
    const results = await Promise.all(
      [...senders, ...senders].map((c, i) => commit(c, machine, [renameOp(`c${i % 4}`)], batches[i % 4])),
    );
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(await logOf(machine)).toEqual([1, 2, 3, 4]);
  });

  it.each([
    ['an empty batch', [], 'ops must be a non-empty array'],
    ['a batch that is not an array', { type: 'x' }, 'ops must be a non-empty array'],
    ['an op without a type', [{ type: 'machine.update', changes: {} }, { id: 's_1' }], 'op 1 has no string "type"'],
    ['an op that is not an object', [42], 'op 0 is not an object'],
    ['an op of an unknown type', [{ type: 'state.explode', id: 's' }], 'op 0 has an unknown type "state.explode"'],
    [
      'an op missing a field',
      [
        renameOp('ok'),
        renameOp('ok'),
        { type: 'state.add', parent: 's_root', key: 'k', stateType: 'atomic', index: null },
      ],
      'op 2 (state.add) needs "id" as string',
    ],
  ])('refuses %s whole with 22023, naming the op, and writes nothing', async (_, ops, message) => {
    const { machine } = await fixture();
    const result = await commit(t.editor.client, machine, ops);
    expect(result.error?.code).toBe('22023');
    expect(result.error?.message).toBe(message);
    expect(await logOf(machine)).toEqual([]);
  });

  it('refuses a batch over the limits with 54000, saying the limit', async () => {
    const { machine } = await fixture();
    const many = await commit(
      t.editor.client,
      machine,
      Array.from({ length: 1001 }, () => renameOp('x')),
    );
    expect(many.error).toMatchObject({ code: '54000', message: 'too many ops in one batch: 1001 (the limit is 1000)' });
    const big = await commit(t.editor.client, machine, [
      { type: 'state.update', id: 's_root', changes: { description: 'x'.repeat(800 * 1024) } },
    ]);
    expect(big.error?.code).toBe('54000');
    expect(big.error?.message).toMatch(
      /^this edit is too big: \d+ bytes of ops \(the limit is 786432 bytes, 768 KB\)$/,
    );
    expect(await logOf(machine)).toEqual([]);
  });

  it('an unknown machine is not found', async () => {
    const result = await commit(t.editor.client, randomUUID(), [renameOp('a')]);
    expect(result.error?.code).toBe('P0002');
  });
});

describe('save_machine_checkpoint', () => {
  const save = (client: AnyClient, machine: string, seq: number, definition: unknown) =>
    client.rpc('save_machine_checkpoint', {
      p_machine: machine,
      p_seq: seq,
      p_definition: definition,
    } as never) as unknown as Promise<Result>;

  it.each(ACTORS.filter((a) => a !== 'service'))(
    'refused to %s: only trusted code writes a definition',
    async (actor) => {
      const { machine } = await fixture();
      await commit(t.editor.client, machine, [renameOp('a')]);
      const result = await save(clients[actor], machine, 1, emptyDefinition('forged'));
      expect(result.error?.code).toBe('42501');
      expect(rows(await clients.service.from('machines').select('version').eq('id', machine))).toEqual([
        { version: 0 },
      ]);
    },
  );

  it('as the service role: moves forward only, never beyond the head', async () => {
    const { machine } = await fixture();
    await commit(t.editor.client, machine, [renameOp('a'), renameOp('b')]);
    expect((await save(clients.service, machine, 3, emptyDefinition('b'))).error?.code).toBe('22023');
    expect((await save(clients.service, machine, 2, emptyDefinition('b'))).data).toEqual({
      saved: true,
      version: 2,
      head: 2,
      released: true,
    });
    expect((await save(clients.service, machine, 1, emptyDefinition('a'))).data).toEqual({
      saved: false,
      version: 2,
      head: 2,
      released: true,
    });
    expect(rows(await t.viewer.client.from('machines').select('definition, version').eq('id', machine))).toEqual([
      { definition: emptyDefinition('b'), version: 2 },
    ]);
  });

  it('the lease: taken by the append that puts the log 100 ops past the checkpoint, given back within 100 of the head', async () => {
    const { machine } = await fixture();
    const ops = (n: number, tag: string) => Array.from({ length: n }, (_, i) => renameOp(`${tag}${i}`));
    // 99 ops past the checkpoint (version 0): not due.
    expect((await commit(t.editor.client, machine, ops(99, 'a'))).data).toMatchObject({ checkpoint_due: false });
    // The 100th: due, and this append holds the lease.
    expect((await commit(t.editor.client, machine, ops(1, 'b'))).data).toMatchObject({
      last_seq: 100,
      checkpoint_due: true,
    });
    // Held: a later append is not told again.
    expect((await commit(t.editor.client, machine, ops(150, 'c'))).data).toMatchObject({ checkpoint_due: false });
    // A save still 100 or more behind the head keeps the lease (its holder goes on)...
    expect((await save(clients.service, machine, 100, emptyDefinition('b0'))).data).toEqual({
      saved: true,
      version: 100,
      head: 250,
      released: false,
    });
    expect((await commit(t.editor.client, machine, ops(1, 'd'))).data).toMatchObject({ checkpoint_due: false });
    // ...one within 100 of the head gives it back, and the append that is 100 past takes it.
    expect((await save(clients.service, machine, 200, emptyDefinition('c99'))).data).toEqual({
      saved: true,
      version: 200,
      head: 251,
      released: true,
    });
    expect((await commit(t.editor.client, machine, ops(48, 'e'))).data).toMatchObject({ checkpoint_due: false });
    expect((await commit(t.editor.client, machine, ops(1, 'f'))).data).toMatchObject({
      last_seq: 300,
      checkpoint_due: true,
    });
  });
});

describe('machine_checkpoint_leases', () => {
  it.each(ACTORS.filter((a) => a !== 'service'))('closed to %s', async (actor) => {
    const { machine } = await fixture();
    await commit(t.editor.client, machine, [renameOp('a')]);
    const read = await clients[actor].from('machine_checkpoint_leases' as never).select('machine_id');
    expect(read.error?.code).toBe('42501');
    const taken = await clients[actor]
      .from('machine_checkpoint_leases' as never)
      .insert({ machine_id: machine } as never);
    expect(taken.error?.code).toBe('42501');
  });
});

describe('machine_ops', () => {
  async function committed() {
    const f = await fixture();
    const batch = randomUUID();
    const result = await commit(t.editor.client, f.machine, [renameOp('a')], batch);
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
    const result = await clients[actor]
      .from('machine_ops')
      .insert({ machine_id: machine, seq: 2, client_id: 'x', batch_id: randomUUID(), op: renameOp('z') });
    expect(result.error?.code).toBe('42501');
  });

  it.each(ACTORS.filter((a) => a !== 'service'))(
    'update or delete as %s: refused, the log is append-only',
    async (actor) => {
      const { machine } = await committed();
      const updated = await clients[actor]
        .from('machine_ops')
        .update({ op: renameOp('forged') })
        .eq('machine_id', machine)
        .select('seq');
      expect(updated.error?.code).toBe('42501');
      const deleted = await clients[actor].from('machine_ops').delete().eq('machine_id', machine).select('seq');
      expect(deleted.error?.code).toBe('42501');
      const log = rows(await clients.service.from('machine_ops').select('op').eq('machine_id', machine));
      expect(log).toEqual([{ op: renameOp('a') }]);
    },
  );

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

  it('machines stream changes; the log does not (its appends go out as private broadcasts)', async () => {
    const db = await adminDb();
    try {
      const published = await db.query<{ tablename: string }>(
        `select tablename from pg_publication_tables where pubname = 'supabase_realtime' and tablename in ('machines', 'machine_ops') order by 1`,
      );
      expect(published.rows.map((r) => r.tablename)).toEqual(['machines']);
    } finally {
      await db.end();
    }
  });
});

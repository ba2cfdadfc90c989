import { randomUUID } from 'node:crypto';
import type { RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDefinition, machineIn, projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, serviceClient, type AnyClient } from '../setup/clients.ts';

/**
 * What an append streams, through supabase-js: the batch as one private broadcast to
 * whoever may read the machine (20261124000100_server_ordered_ops.sql), and to whoever
 * follows the project's machine list only the machine's summary when a checkpoint moves
 * it (the publication's column list leaves the definition out, see
 * 20261122001200_machines_stream_summary.sql).
 */

type Payload = RealtimePostgresChangesPayload<Record<string, unknown>>;

let t: Team;
let project: string;
const opened: AnyClient[] = [];

beforeAll(async () => {
  t = await team();
  project = await projectFor(t);
});

afterAll(async () => {
  for (const client of opened) await client.removeAllChannels();
});

/** Subscribes `client` to one table's changes with a filter; resolves once joined. */
async function follow(client: AnyClient, table: string, filter: string): Promise<Payload[]> {
  opened.push(client);
  const received: Payload[] = [];
  await new Promise<void>((resolve, reject) => {
    client
      .channel(`stream-${table}-${randomUUID()}`)
      .on('postgres_changes', { event: '*', schema: 'public', table, filter }, (payload: Payload) =>
        received.push(payload),
      )
      .subscribe((status, error) => {
        // Compared as text: supabase-js types the status as an enum it does not export by value.
        const state = status as string;
        if (state === 'SUBSCRIBED') resolve();
        if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT') reject(error ?? new Error(state));
      });
  });
  return received;
}

/** Joins a private channel; resolves with how the join ended. */
async function joinPrivate(client: AnyClient, topic: string, onOps?: (payload: Record<string, unknown>) => void) {
  opened.push(client);
  const channel = client.channel(topic, { config: { private: true, broadcast: { self: false } } });
  if (onOps)
    channel.on('broadcast', { event: 'ops' }, (message: { payload?: Record<string, unknown> }) =>
      onOps(message.payload ?? {}),
    );
  const status = await new Promise<string>((resolve) => {
    channel.subscribe((state) => {
      const s = state as string;
      if (s === 'SUBSCRIBED' || s === 'CHANNEL_ERROR' || s === 'TIMED_OUT') resolve(s);
    });
  });
  return { channel, status };
}

/** Follows a machine's appended batches (private broadcasts on `machine-ops:<id>`). */
async function followOps(client: AnyClient, machine: string): Promise<Record<string, unknown>[]> {
  const received: Record<string, unknown>[] = [];
  const joined = await joinPrivate(client, `machine-ops:${machine}`, (payload) => received.push(payload));
  if (joined.status !== 'SUBSCRIBED') throw new Error(`could not follow the machine's ops: ${joined.status}`);
  return received;
}

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const hit = probe();
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('machine changes on the realtime stream', () => {
  it('an append streams its op; the machine row moves only with a checkpoint, whose summary streams without the definition', async () => {
    const machine = await machineIn(t, project, 'streamed');
    const list = await follow(t.viewer.client, 'machines', `project_id=eq.${project}`);
    const ops = await followOps(t.viewer.client, machine);
    const committed = await t.editor.client.rpc('commit_machine_ops', {
      p_machine: machine,
      p_client_id: 'stream-test',
      p_batch_id: randomUUID(),
      p_ops: [{ type: 'machine.update', changes: { name: 'renamed by commit' } }],
    } as never);
    expect(committed.error).toBeNull();

    const batch = await until(() => ops[0], 'the batch broadcast');
    expect(batch).toMatchObject({ ops: [{ seq: 1, client_id: 'stream-test', op: { type: 'machine.update' } }] });

    // Trusted code moves the checkpoint (the checkpoint-machine function does this).
    const definition = { ...emptyDefinition('streamed'), name: 'renamed by commit' };
    const saved = await serviceClient().rpc('save_machine_checkpoint', {
      p_machine: machine,
      p_seq: 1,
      p_definition: definition,
    } as never);
    expect(saved.error).toBeNull();
    const update = await until(
      () => list.find((p) => p.eventType === 'UPDATE' && p.new.id === machine),
      'the machine update',
    );
    expect(Object.keys(update.new).sort()).toEqual([
      'created_at',
      'created_by',
      'id',
      'name',
      'project_id',
      'realtime_key',
      'updated_at',
      'version',
    ]);
    expect(update.new).toMatchObject({
      id: machine,
      project_id: project,
      name: 'streamed',
      version: 1,
      created_by: t.owner.id,
    });
    // The replica identity is an opaque key (migration private_project_channels), never the id.
    expect(update.old).toEqual({ realtime_key: expect.any(String) as string });
    // No update reached the list for the append itself: the first one is the checkpoint's.
    expect(list.filter((p) => p.eventType === 'UPDATE' && p.new.id === machine)[0]?.new).toMatchObject({ version: 1 });

    const row = await t.viewer.client.from('machines').select('definition, version').eq('id', machine).single();
    expect(row.data).toEqual({ definition, version: 1 });
  });

  it('streams new machines to the list, and a rename, also without the definition', async () => {
    const list = await follow(t.editor.client, 'machines', `project_id=eq.${project}`);
    const machine = await machineIn(t, project, 'listed');
    const renamed = await t.owner.client.from('machines').update({ name: 'listed, renamed' }).eq('id', machine);
    expect(renamed.error).toBeNull();
    const insert = await until(() => list.find((p) => p.eventType === 'INSERT' && p.new.id === machine), 'the insert');
    const rename = await until(() => list.find((p) => p.eventType === 'UPDATE' && p.new.id === machine), 'the rename');
    expect(insert.new).toMatchObject({ name: 'listed', version: 0 });
    expect(rename.new).toMatchObject({ name: 'listed, renamed', version: 0 });
    for (const p of [insert, rename]) expect(p.new).not.toHaveProperty('definition');
  });

  it("an outsider cannot follow a machine's ops; a reader can; clients cannot send on the topic", async () => {
    const machine = await machineIn(t, project, 'private ops');
    const denied = await joinPrivate(t.outsider.client, `machine-ops:${machine}`);
    expect(denied.status).toBe('CHANNEL_ERROR');
    const allowed = await joinPrivate(t.editor.client, `machine-ops:${machine}`);
    expect(allowed.status).toBe('SUBSCRIBED');
    const heard = await followOps(t.viewer.client, machine);
    await allowed.channel.send({
      type: 'broadcast',
      event: 'ops',
      payload: { ops: [{ seq: 1, op: { type: 'forged' } }] },
    });
    // A real append arrives after it; the forged one never does (no insert policy for clients).
    await t.editor.client.rpc('commit_machine_ops', {
      p_machine: machine,
      p_client_id: 'real',
      p_batch_id: randomUUID(),
      p_ops: [{ type: 'machine.update', changes: { name: 'real' } }],
    } as never);
    await until(() => heard[0], 'the real batch');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ ops: [{ seq: 1, client_id: 'real' }] });
  });

  it('publishes machines with the summary columns only, and not the op log', async () => {
    const db = await adminDb();
    try {
      const published = await db.query<{ tablename: string; attnames: string[] }>(
        `select tablename, attnames::text[] as attnames from pg_publication_tables
          where pubname = 'supabase_realtime' and tablename in ('machines', 'machine_ops') order by 1`,
      );
      expect(published.rows).toEqual([
        {
          tablename: 'machines',
          attnames: ['id', 'project_id', 'name', 'version', 'created_by', 'created_at', 'updated_at', 'realtime_key'],
        },
      ]);
    } finally {
      await db.end();
    }
  });
});

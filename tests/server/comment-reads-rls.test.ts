import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Team } from '../adapters/machines-fixtures.ts';
import type { AnyClient } from '../setup/clients.ts';
import { callerClients, callerIds, teamMachine, type Caller } from './rls-callers.ts';

/**
 * Comment read marks under row level security, from the outside, through supabase-js:
 * each signed-in person who may read the machine marks where they have read up to and
 * reads back only their own mark (an owner does not see an editor's); an outsider cannot
 * mark a machine they cannot see, anon cannot mark at all, nobody writes or reads someone
 * else's row, a mark in the future is refused in words, and a mark never moves back.
 */

const MARKERS: Caller[] = ['viewer', 'editor', 'owner'];

let t: Team;
let db: pg.Client;
let machine: string;
const clients = {} as Record<Caller, AnyClient>;
const ids = {} as Record<Caller, string | undefined>;

beforeAll(async () => {
  ({ t, db, machine } = await teamMachine());
  Object.assign(clients, callerClients(t));
  Object.assign(ids, callerIds(t));
});

afterAll(async () => {
  await db.end();
});

const mark = (actor: Caller, readAt: string, userId = ids[actor]) =>
  clients[actor]
    .from('comment_reads')
    .upsert({ user_id: userId, machine_id: machine, read_at: readAt }, { onConflict: 'user_id,machine_id' })
    .select('user_id, read_at');

const stored = async (): Promise<{ user_id: string; read_at: string }[]> =>
  (
    await db.query<{ user_id: string; read_at: Date }>(
      'select user_id, read_at from public.comment_reads where machine_id = $1 order by user_id',
      [machine],
    )
  ).rows.map((r) => ({ user_id: r.user_id, read_at: r.read_at.toISOString() }));

describe('comment read marks', () => {
  it.each(MARKERS)('%s marks their own and reads back only it', async (actor) => {
    const written = await mark(actor, '2026-11-27T10:00:00.000Z');
    expect(written.error).toBeNull();
    const mine = await clients[actor].from('comment_reads').select('user_id').eq('machine_id', machine);
    expect(mine.error).toBeNull();
    expect(mine.data).toEqual([{ user_id: ids[actor] }]);
  });

  it("keeps every marker's row apart in the database", async () => {
    const rows = await stored();
    expect(rows.map((r) => r.user_id).sort()).toEqual(MARKERS.map((a) => ids[a]).sort());
  });

  it('refuses an outsider (the machine is not theirs to see) and anon, writing nothing', async () => {
    const before = await stored();
    const outsider = await mark('outsider', '2026-11-27T10:00:00.000Z');
    expect(outsider.error?.code).toBe('PT404');
    const anon = await mark('anon', '2026-11-27T10:00:00.000Z', ids.owner);
    expect(anon.error?.code).toBe('42501');
    expect(await stored()).toEqual(before);
  });

  it("lets nobody write or read another person's mark", async () => {
    const before = await stored();
    const forged = await mark('editor', '2026-11-27T11:00:00.000Z', ids.owner);
    expect(forged.error?.code).toBe('42501');
    const moved = await clients.editor
      .from('comment_reads')
      .update({ read_at: '2026-11-27T11:30:00.000Z' })
      .eq('user_id', ids.owner ?? '')
      .select('user_id');
    expect(moved.data).toEqual([]);
    const removed = await clients.editor
      .from('comment_reads')
      .delete()
      .eq('user_id', ids.owner ?? '')
      .select('user_id');
    expect(removed.data).toEqual([]);
    const peek = await clients.outsider.from('comment_reads').select('user_id');
    expect(peek.data).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  it('refuses a mark in the future in words, and never moves a mark back', async () => {
    const future = await mark('viewer', new Date(Date.now() + 3_600_000).toISOString());
    expect(future.error?.code).toBe('22023');
    expect(future.error?.message).toBe('a read mark cannot be in the future');
    const later = await mark('viewer', '2026-11-27T12:00:00.000Z');
    expect(later.error).toBeNull();
    const earlier = await mark('viewer', '2026-11-27T09:00:00.000Z');
    expect(earlier.error).toBeNull();
    const viewerRow = (await stored()).find((r) => r.user_id === ids.viewer);
    expect(viewerRow?.read_at).toBe('2026-11-27T12:00:00.000Z');
  });
});

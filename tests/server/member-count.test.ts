import { describe, expect, it } from 'vitest';
import { adminDb, serviceClient, signedInClient, type AnyClient } from '../setup/clients.ts';

/**
 * projects.member_count (migration 20261122001300): exact through joins, leaves,
 * removals, moves, concurrent joins and account deletion, and written by no one but its
 * trigger: owners, editors, the service role and inserts are refused, from the outside
 * through supabase-js.
 */

interface Row {
  member_count: number;
  name: string;
}

async function countOf(client: AnyClient, id: string): Promise<number> {
  const { data, error } = await client.from('projects').select('member_count').eq('id', id).single<Row>();
  if (error) throw new Error(error.message);
  return data.member_count;
}

async function newProject(
  client: AnyClient,
  visibility: 'private' | 'link' = 'private',
): Promise<{ id: string; share_token: string }> {
  const { data, error } = await client
    .from('projects')
    .insert({ name: 'Counted', visibility })
    .select('id')
    .single<{ id: string }>();
  if (error) throw new Error(error.message);
  const token = await client.rpc('owned_share_tokens', { p_project: data.id }).single<{ share_token: string }>();
  if (token.error) throw new Error(token.error.message);
  return { id: data.id, share_token: token.data.share_token };
}

describe('projects.member_count', () => {
  it('follows memberships added, changed, removed and moved between projects', async () => {
    const [owner, editor, viewer] = await Promise.all([
      signedInClient('mc-owner'),
      signedInClient('mc-editor'),
      signedInClient('mc-viewer'),
    ]);
    const p = await newProject(owner.client);
    expect(await countOf(owner.client, p.id)).toBe(1);

    const added = await owner.client.from('project_members').insert([
      { project_id: p.id, user_id: editor.user.id, role: 'editor', joined_via: 'added' },
      { project_id: p.id, user_id: viewer.user.id, role: 'viewer', joined_via: 'added' },
    ]);
    expect(added.error).toBeNull();
    expect(await countOf(owner.client, p.id)).toBe(3);

    // A role change is no join.
    const promoted = await owner.client
      .from('project_members')
      .update({ role: 'editor' })
      .eq('project_id', p.id)
      .eq('user_id', viewer.user.id)
      .select('role');
    expect(promoted.data).toHaveLength(1);
    expect(await countOf(owner.client, p.id)).toBe(3);

    const left = await viewer.client
      .from('project_members')
      .delete()
      .eq('project_id', p.id)
      .eq('user_id', viewer.user.id)
      .select('user_id');
    expect(left.data).toHaveLength(1);
    expect(await countOf(owner.client, p.id)).toBe(2);

    // An owner of two projects moves a membership: it leaves one and joins the other.
    const q = await newProject(owner.client);
    const moved = await owner.client
      .from('project_members')
      .update({ project_id: q.id })
      .eq('project_id', p.id)
      .eq('user_id', editor.user.id)
      .select('project_id');
    expect(moved.error).toBeNull();
    expect(moved.data).toHaveLength(1);
    expect([await countOf(owner.client, p.id), await countOf(owner.client, q.id)]).toEqual([1, 2]);

    const removed = await owner.client
      .from('project_members')
      .delete()
      .eq('project_id', q.id)
      .eq('user_id', editor.user.id)
      .select('user_id');
    expect(removed.data).toHaveLength(1);
    expect(await countOf(owner.client, q.id)).toBe(1);

    // Deleting a project cascades to its memberships without tripping over the count.
    const gone = await owner.client.from('projects').delete().eq('id', q.id).select('id');
    expect(gone.error).toBeNull();
    expect(gone.data).toHaveLength(1);
  });

  it('stays exact under concurrent joins and when an account is deleted', async () => {
    const owner = await signedInClient('mc-busy');
    const p = await newProject(owner.client, 'link');
    const joiners = await Promise.all(Array.from({ length: 6 }, (_, i) => signedInClient(`mc-join${i}`)));
    const joined = await Promise.all(
      joiners.map((j) => j.client.rpc('join_shared_project', { p_token: p.share_token })),
    );
    expect(joined.map((r) => r.error)).toEqual(joiners.map(() => null));
    // Joining again changes nothing (the membership already exists).
    expect((await joiners[0]!.client.rpc('join_shared_project', { p_token: p.share_token })).error).toBeNull();
    expect(await countOf(owner.client, p.id)).toBe(7);

    const deleted = await serviceClient().auth.admin.deleteUser(joiners[1]!.user.id);
    expect(deleted.error).toBeNull();
    expect(await countOf(owner.client, p.id)).toBe(6);
  });

  it('cannot be written by owners, editors, viewers, the service role or an insert', async () => {
    const [owner, editor, viewer] = await Promise.all([
      signedInClient('mcw-owner'),
      signedInClient('mcw-editor'),
      signedInClient('mcw-viewer'),
    ]);
    const p = await newProject(owner.client);
    const added = await owner.client.from('project_members').insert([
      { project_id: p.id, user_id: editor.user.id, role: 'editor', joined_via: 'added' },
      { project_id: p.id, user_id: viewer.user.id, role: 'viewer', joined_via: 'added' },
    ]);
    expect(added.error).toBeNull();

    for (const client of [owner.client, editor.client, serviceClient()]) {
      const set = await client.from('projects').update({ member_count: 42 }).eq('id', p.id).select('member_count');
      expect(set.error?.code).toBe('42501');
      expect(set.error?.message).toMatch(/member count/);
      // Together with an allowed change, the whole update is refused.
      const mixed = await client
        .from('projects')
        .update({ name: 'Sneaky', member_count: 0 })
        .eq('id', p.id)
        .select('name');
      expect(mixed.error?.code).toBe('42501');
    }
    // A viewer may not update the project at all: RLS leaves no row to touch.
    const byViewer = await viewer.client
      .from('projects')
      .update({ member_count: 42 })
      .eq('id', p.id)
      .select('member_count');
    expect(byViewer.error).toBeNull();
    expect(byViewer.data).toEqual([]);

    const { data } = await owner.client.from('projects').select('member_count, name').eq('id', p.id).single<Row>();
    expect(data).toEqual({ member_count: 3, name: 'Counted' });
    // The ordinary update still goes through (and keeps the count).
    const renamed = await editor.client
      .from('projects')
      .update({ name: 'Renamed' })
      .eq('id', p.id)
      .select('member_count, name');
    expect(renamed.error).toBeNull();
    expect(renamed.data).toEqual([{ member_count: 3, name: 'Renamed' }]);

    const inserted = await owner.client.from('projects').insert({ name: 'Preset', member_count: 10 }).select('id');
    expect(inserted.error?.code).toBe('42501');
    const viaService = await serviceClient()
      .from('projects')
      .insert({ name: 'Preset', owner_id: owner.user.id, member_count: 10 })
      .select('id');
    expect(viaService.error?.code).toBe('42501');
  });

  it('matches the memberships of every project in the database', async () => {
    const db = await adminDb();
    try {
      const { rows } = await db.query<{ id: string }>(
        `select p.id from public.projects p
          where p.member_count <> (select count(*) from public.project_members m where m.project_id = p.id)`,
      );
      expect(rows).toEqual([]);
      const { rows: total } = await db.query<{ n: string }>('select count(*) as n from public.projects');
      expect(Number(total[0]?.n)).toBeGreaterThan(0);
    } finally {
      await db.end();
    }
  });
});

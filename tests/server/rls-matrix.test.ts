import { beforeAll, describe, expect, it } from 'vitest';
import { anonClient, serviceClient, signedInClient, type AnyClient } from '../setup/clients.ts';

/**
 * The projects data model's row level security, cell by cell: every table, every kind
 * of caller, every operation, asserted from the outside through supabase-js. A refused
 * read returns no row; a refused insert is a 42501 error; a refused update or delete
 * touches no row (RLS filters it) or raises the guarding trigger's error.
 */

type Actor = 'anon' | 'guest' | 'outsider' | 'viewer' | 'editor' | 'owner' | 'service';
const ACTORS: Actor[] = ['anon', 'guest', 'outsider', 'viewer', 'editor', 'owner', 'service'];

interface Result {
  data: unknown;
  error: { code?: string; message: string } | null;
}

const clients = {} as Record<Actor, AnyClient>;
const ids = {} as Record<Exclude<Actor, 'anon' | 'service'>, string>;
let service: AnyClient;

beforeAll(async () => {
  const [owner, editor, viewer, outsider] = await Promise.all([
    signedInClient('owner'),
    signedInClient('editor'),
    signedInClient('viewer'),
    signedInClient('outsider'),
  ]);
  const guest = anonClient();
  const { data, error } = await guest.auth.signInAnonymously();
  if (error || !data.user) throw error ?? new Error('no guest');
  service = serviceClient();
  Object.assign(clients, {
    anon: anonClient(),
    guest,
    outsider: outsider.client,
    viewer: viewer.client,
    editor: editor.client,
    owner: owner.client,
    service,
  });
  Object.assign(ids, {
    owner: owner.user.id,
    editor: editor.user.id,
    viewer: viewer.user.id,
    outsider: outsider.user.id,
    guest: data.user.id,
  });
});

/** A fresh project owned by `owner`, with `editor` and `viewer` members, plus one invite. */
async function project(visibility: 'private' | 'link' | 'public' = 'private') {
  const created = await clients.owner
    .from('projects')
    .insert({ name: `P ${visibility}`, visibility })
    .select('id')
    .single<{ id: string }>();
  if (created.error) throw new Error(created.error.message);
  // The share token is the owners' alone (project_share_links), read through owned_share_tokens.
  const token = await clients.owner
    .rpc('owned_share_tokens', { p_project: created.data.id })
    .single<{ share_token: string }>();
  if (token.error) throw new Error(token.error.message);
  const p = { id: created.data.id, share_token: token.data.share_token };
  const added = await clients.owner.from('project_members').insert([
    { project_id: p.id, user_id: ids.editor, role: 'editor', joined_via: 'added' },
    { project_id: p.id, user_id: ids.viewer, role: 'viewer', joined_via: 'added' },
  ]);
  if (added.error) throw new Error(added.error.message);
  const invite = await clients.owner
    .from('project_invites')
    .insert({ project_id: p.id, role: 'viewer' })
    .select()
    .single();
  if (invite.error) throw new Error(invite.error.message);
  return { id: p.id, shareToken: p.share_token, inviteId: (invite.data as { id: string }).id };
}

function rows(result: Result): unknown[] {
  if (result.error) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.data as unknown[];
}

/** Asserts a write was refused: an RLS error, or no row touched. */
function expectRefused(result: Result): void {
  if (result.error) {
    expect(['42501', '23514', 'PGRST116']).toContain(result.error.code);
  } else {
    expect(result.data).toEqual([]);
  }
}

const allow = (...actors: Actor[]) => new Set(actors);

describe('projects', () => {
  const readers = allow('viewer', 'editor', 'owner', 'service');
  it.each(ACTORS)('select a private project as %s', async (actor) => {
    const p = await project();
    const seen = rows(await clients[actor].from('projects').select('id').eq('id', p.id));
    expect(seen).toEqual(readers.has(actor) ? [{ id: p.id }] : []);
  });

  it.each(ACTORS)('select a public project as %s: everyone reads it', async (actor) => {
    const p = await project('public');
    expect(rows(await clients[actor].from('projects').select('id').eq('id', p.id))).toEqual([{ id: p.id }]);
  });

  it.each(ACTORS)('select a link project as %s: members only until the link is opened', async (actor) => {
    const p = await project('link');
    const seen = rows(await clients[actor].from('projects').select('id').eq('id', p.id));
    expect(seen).toEqual(readers.has(actor) ? [{ id: p.id }] : []);
  });

  const creators = allow('outsider', 'viewer', 'editor', 'owner', 'service');
  it.each(ACTORS)('insert a project as %s', async (actor) => {
    const ownerId = actor === 'anon' || actor === 'service' ? ids.owner : ids[actor];
    const result = await clients[actor]
      .from('projects')
      .insert({ name: `by ${actor}`, owner_id: ownerId })
      .select('id');
    if (creators.has(actor)) expect(rows(result)).toHaveLength(1);
    else expect(result.error?.code).toBe('42501');
  });

  it.each(ACTORS)('insert a project owned by someone else as %s', async (actor) => {
    if (actor === 'service') return;
    const result = await clients[actor]
      .from('projects')
      .insert({ name: 'forged owner', owner_id: ids.outsider === ids[actor as 'outsider'] ? ids.owner : ids.outsider });
    expect(result.error?.code).toBe('42501');
  });

  const renamers = allow('editor', 'owner', 'service');
  it.each(ACTORS)('rename a project as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor]
      .from('projects')
      .update({ name: `renamed by ${actor}` })
      .eq('id', p.id)
      .select('name');
    if (renamers.has(actor)) expect(rows(result)).toEqual([{ name: `renamed by ${actor}` }]);
    else expectRefused(result);
  });

  const settings = allow('owner', 'service');
  it.each(ACTORS)('change visibility as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor]
      .from('projects')
      .update({ visibility: 'public' })
      .eq('id', p.id)
      .select('visibility');
    if (settings.has(actor)) expect(rows(result)).toEqual([{ visibility: 'public' }]);
    else expectRefused(result);
    const after = rows(await service.from('projects').select('visibility').eq('id', p.id));
    expect(after).toEqual([{ visibility: settings.has(actor) ? 'public' : 'private' }]);
  });

  it.each(ACTORS)('delete a project as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor].from('projects').delete().eq('id', p.id).select('id');
    if (settings.has(actor)) expect(rows(result)).toEqual([{ id: p.id }]);
    else expectRefused(result);
    expect(rows(await service.from('projects').select('id').eq('id', p.id))).toHaveLength(settings.has(actor) ? 0 : 1);
  });
});

describe('project_members', () => {
  const readers = allow('viewer', 'editor', 'owner', 'service');
  it.each(ACTORS)('select members of a private project as %s', async (actor) => {
    const p = await project();
    const seen = rows(await clients[actor].from('project_members').select('user_id').eq('project_id', p.id));
    expect(seen).toHaveLength(readers.has(actor) ? 3 : 0);
  });

  const managers = allow('owner', 'service');
  it.each(ACTORS)('add a member as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor]
      .from('project_members')
      .insert({ project_id: p.id, user_id: ids.outsider, role: 'owner' })
      .select('role');
    if (managers.has(actor)) expect(rows(result)).toEqual([{ role: 'owner' }]);
    else if (actor === 'outsider')
      expect(result.error?.code).toBe('42501'); // cannot add themselves either
    else expect(result.error?.code).toBe('42501');
  });

  it.each(ACTORS)('change a role as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor]
      .from('project_members')
      .update({ role: 'editor' })
      .eq('project_id', p.id)
      .eq('user_id', ids.viewer)
      .select('role');
    if (managers.has(actor)) expect(rows(result)).toEqual([{ role: 'editor' }]);
    else expectRefused(result);
  });

  it.each(ACTORS)('remove another member as %s', async (actor) => {
    const p = await project();
    // Someone other than the caller (removing yourself is leaving, tested below).
    const target = actor === 'viewer' ? ids.editor : ids.viewer;
    const result = await clients[actor]
      .from('project_members')
      .delete()
      .eq('project_id', p.id)
      .eq('user_id', target)
      .select('user_id');
    if (managers.has(actor)) expect(rows(result)).toEqual([{ user_id: target }]);
    else expectRefused(result);
  });

  it.each(['viewer', 'editor'] as const)('a %s may leave on their own', async (actor) => {
    const p = await project();
    const result = await clients[actor]
      .from('project_members')
      .delete()
      .eq('project_id', p.id)
      .eq('user_id', ids[actor])
      .select('user_id');
    expect(rows(result)).toEqual([{ user_id: ids[actor] }]);
  });

  it.each(['owner', 'service'] as const)(
    'the primary owner cannot be demoted or removed, even by %s',
    async (actor) => {
      const p = await project();
      const demote = await clients[actor]
        .from('project_members')
        .update({ role: 'viewer' })
        .eq('project_id', p.id)
        .eq('user_id', ids.owner)
        .select();
      expect(demote.error?.code).toBe('23514');
      const remove = await clients[actor]
        .from('project_members')
        .delete()
        .eq('project_id', p.id)
        .eq('user_id', ids.owner)
        .select();
      expect(remove.error?.code).toBe('23514');
    },
  );
});

describe('project_invites', () => {
  const owners = allow('owner', 'service');
  it.each(ACTORS)('select invites as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor].from('project_invites').select('id').eq('project_id', p.id);
    // anon holds no privilege on invites at all (the migration grants it none).
    if (actor === 'anon') expect(result.error?.code).toBe('42501');
    else expect(rows(result)).toHaveLength(owners.has(actor) ? 1 : 0);
  });

  it.each(ACTORS)('create an invite as %s', async (actor) => {
    const p = await project();
    const by = actor === 'anon' || actor === 'service' ? ids.owner : ids[actor];
    const result = await clients[actor]
      .from('project_invites')
      .insert({ project_id: p.id, role: 'editor', created_by: by })
      .select('role');
    if (owners.has(actor)) expect(rows(result)).toEqual([{ role: 'editor' }]);
    else expect(result.error?.code).toBe('42501');
  });

  it.each(ACTORS)('revoke an invite as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor]
      .from('project_invites')
      .update({ revoked_at: new Date().toISOString() })
      .eq('id', p.inviteId)
      .select('id');
    if (owners.has(actor)) expect(rows(result)).toEqual([{ id: p.inviteId }]);
    else expectRefused(result);
  });

  it.each(ACTORS)('delete an invite as %s', async (actor) => {
    const p = await project();
    const result = await clients[actor].from('project_invites').delete().eq('id', p.inviteId).select('id');
    if (owners.has(actor)) expect(rows(result)).toEqual([{ id: p.inviteId }]);
    else expectRefused(result);
  });
});

describe('profiles', () => {
  it.each(ACTORS)(
    "read a private person's profile as %s: only themselves and people sharing a project",
    async (actor) => {
      // A person in no public project, sharing one private project with the viewer only.
      const loner = await signedInClient('loner');
      const created = await loner.client.from('projects').insert({ name: 'private' }).select('id').single();
      const projectId = (created.data as { id: string }).id;
      await service.from('project_members').insert({ project_id: projectId, user_id: ids.viewer, role: 'viewer' });
      const seen = rows(await clients[actor].from('profiles').select('id').eq('id', loner.user.id));
      expect(seen).toHaveLength(allow('viewer', 'service').has(actor) ? 1 : 0);
      expect(rows(await loner.client.from('profiles').select('id').eq('id', loner.user.id))).toHaveLength(1);
    },
  );

  it.each(ACTORS)('read the members of a public project as %s', async (actor) => {
    const p = await project('public');
    const members = rows(await service.from('project_members').select('user_id').eq('project_id', p.id)) as {
      user_id: string;
    }[];
    const seen = rows(
      await clients[actor]
        .from('profiles')
        .select('id')
        .in(
          'id',
          members.map((m) => m.user_id),
        ),
    );
    expect(seen).toHaveLength(3);
  });

  it.each(ACTORS)("update the viewer's profile as %s: only the viewer (and service)", async (actor) => {
    const name = `set by ${actor}`;
    const result = await clients[actor]
      .from('profiles')
      .update({ display_name: name })
      .eq('id', ids.viewer)
      .select('display_name');
    if (allow('viewer', 'service').has(actor)) expect(rows(result)).toEqual([{ display_name: name }]);
    else expectRefused(result);
  });

  it.each(ACTORS)('insert or delete a profile as %s', async (actor) => {
    if (actor === 'service') return;
    const insert = await clients[actor]
      .from('profiles')
      .insert({ id: ids.outsider, display_name: 'x', color: '#000000' });
    expect(insert.error?.code).toMatch(/^(42501|23505)$/);
    const del = await clients[actor]
      .from('profiles')
      .delete()
      .eq('id', actor === 'anon' ? ids.owner : ids[actor])
      .select('id');
    expectRefused(del);
  });

  it('every sign-up gets a profile with a palette colour; guests are marked', async () => {
    const mine = rows(
      await clients.guest.from('profiles').select('display_name, color, is_guest').eq('id', ids.guest),
    ) as {
      color: string;
      is_guest: boolean;
    }[];
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ display_name: 'Guest', is_guest: true });
    expect(mine[0]!.color).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('share links', () => {
  it('a guest opening a link project joins it as a viewer and can read it', async () => {
    const p = await project('link');
    const joined = (await clients.guest.rpc('join_shared_project', { p_token: p.shareToken })) as Result;
    expect(joined.error).toBeNull();
    expect(joined.data).toBe(p.id);
    expect(
      rows(
        await clients.guest
          .from('project_members')
          .select('role, joined_via')
          .eq('project_id', p.id)
          .eq('user_id', ids.guest),
      ),
    ).toEqual([{ role: 'viewer', joined_via: 'link' }]);
    // Still a viewer: cannot rename.
    expectRefused(await clients.guest.from('projects').update({ name: 'guest was here' }).eq('id', p.id).select());
  });

  it("a private project's token opens nothing, and the anon role cannot call it", async () => {
    const p = await project('private');
    const { error } = await clients.outsider.rpc('join_shared_project', { p_token: p.shareToken });
    expect(error?.code).toBe('P0002');
    const anon = await clients.anon.rpc('join_shared_project', { p_token: p.shareToken });
    expect(anon.error?.code).toBe('42501');
  });
});

describe('avatars bucket', () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  it.each(ACTORS)('upload into your own folder, never another person’s, as %s', async (actor) => {
    if (actor === 'service') return;
    const own = actor === 'anon' ? ids.owner : ids[actor];
    const mine = await clients[actor].storage
      .from('avatars')
      .upload(`${own}/avatar.png`, png, { contentType: 'image/png', upsert: true });
    if (actor === 'anon') expect(mine.error).not.toBeNull();
    else expect(mine.error).toBeNull();
    const theirs = await clients[actor].storage
      .from('avatars')
      .upload(`${ids.outsider === own ? ids.owner : ids.outsider}/avatar.png`, png, {
        contentType: 'image/png',
        upsert: true,
      });
    expect(theirs.error).not.toBeNull();
  });

  it('refuses a non-image avatar', async () => {
    const result = await clients.owner.storage
      .from('avatars')
      .upload(`${ids.owner}/notes.txt`, 'hello', { contentType: 'text/plain' });
    expect(result.error).not.toBeNull();
  });
});

describe('guest conversion', () => {
  it('a guest who adds an email and password is no longer marked a guest, and gets a name', async () => {
    const guest = anonClient();
    const { data, error } = await guest.auth.signInAnonymously();
    expect(error).toBeNull();
    const id = data.user!.id;
    const email = `converted-${id.slice(0, 8)}@example.test`;
    const updated = await guest.auth.updateUser({ email, password: 'correct-horse-battery' });
    expect(updated.error).toBeNull();
    const profile = rows(await service.from('profiles').select('display_name, is_guest').eq('id', id));
    expect(profile).toEqual([{ display_name: `converted-${id.slice(0, 8)}`, is_guest: false }]);
  });
});

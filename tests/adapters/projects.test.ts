import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProjectsAdapter } from '../../src/adapters/supabase/projects.ts';
import { person, watch } from './projects-watch.ts';
import { anonClient } from '../setup/clients.ts';

/**
 * The projects adapter against the real embedded backend through supabase-js: the list
 * through memberships, the requests with their refusals, and the live stream seeing
 * projects created, renamed, shared with and deleted by someone else.
 */

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('projects adapter', () => {
  it('creates, lists, renames, shares and deletes; refuses what RLS refuses', async () => {
    const a = await person('proj-a');
    const created = await a.projects.create({
      name: '  Traffic light ',
      description: 'Red, amber, green',
      visibility: 'private',
    });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.value).toMatchObject({
      name: 'Traffic light',
      role: 'owner',
      visibility: 'private',
      memberCount: 1,
    });
    expect(created.value.shareToken).toMatch(/^[0-9a-f]{32}$/);

    const listed = await a.projects.list(a.user.id);
    expect(listed.ok && listed.value.map((p) => [p.id, p.memberCount])).toEqual([[created.value.id, 1]]);

    expect(await a.projects.update(created.value.id, { name: 'Signals', visibility: 'link' })).toEqual({
      ok: true,
      value: null,
    });
    const after = await a.projects.list(a.user.id);
    expect(after.ok && after.value[0]).toMatchObject({ name: 'Signals', visibility: 'link' });

    const blank = await a.projects.create({ name: '   ', description: '', visibility: 'private' });
    expect(blank).toEqual({ ok: false, error: { code: 'invalid', message: 'Give the project a name.' } });

    // An outsider can neither rename nor delete it.
    const b = await person('proj-b');
    const renamed = await b.projects.update(created.value.id, { name: 'Mine now' });
    expect(renamed.ok).toBe(false);
    const deleted = await b.projects.remove(created.value.id);
    expect(!deleted.ok && deleted.error.code).toBe('forbidden');

    // The link makes b a viewer; a viewer still cannot delete.
    const token = created.value.shareToken ?? '';
    expect(await b.projects.joinShared(token)).toEqual({ ok: true, value: created.value.id });
    const bList = await b.projects.list(b.user.id);
    expect(bList.ok && bList.value[0]).toMatchObject({
      id: created.value.id,
      role: 'viewer',
      shareToken: null,
      memberCount: 2,
    });
    const aList = await a.projects.list(a.user.id);
    expect(aList.ok && aList.value[0]?.memberCount).toBe(2);
    expect((await b.projects.remove(created.value.id)).ok).toBe(false);

    const bad = await b.projects.joinShared('not-a-token');
    expect(!bad.ok && bad.error.code).toBe('invalid_link');

    expect(await a.projects.remove(created.value.id)).toEqual({ ok: true, value: null });
    const empty = await a.projects.list(a.user.id);
    expect(empty.ok && empty.value).toEqual([]);
  });

  it('streams projects created, renamed, joined and deleted elsewhere', async () => {
    const a = await person('live-a');
    const b = await person('live-b');
    const bWatch = watch(b.projects, b.user.id, stops);
    const aWatch = watch(a.projects, a.user.id, stops);
    await bWatch.waitFor((f) => f.type === 'projects.channelJoined');
    await aWatch.waitFor((f) => f.type === 'projects.channelJoined');

    const created = await a.projects.create({ name: 'Live one', description: '', visibility: 'link' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    // a's own stream sees its new project through its owner membership.
    await aWatch.waitFor((f) => f.type === 'projects.upserted' && f.project.id === id && f.project.role === 'owner');

    await b.projects.joinShared(created.value.shareToken ?? '');
    await bWatch.waitFor((f) => f.type === 'projects.upserted' && f.project.id === id && f.project.role === 'viewer');

    await a.projects.update(id, { name: 'Live renamed' });
    await bWatch.waitFor(
      (f) => f.type === 'projects.upserted' && f.project.id === id && f.project.name === 'Live renamed',
    );

    await a.projects.remove(id);
    await bWatch.waitFor((f) => f.type === 'projects.removed' && f.id === id);
  });

  it('guests join a public project by its link', async () => {
    const a = await person('pub-a');
    const created = await a.projects.create({ name: 'Public one', description: '', visibility: 'public' });
    if (!created.ok) throw new Error(created.error.message);
    const guestClient = anonClient();
    const { data, error } = await guestClient.auth.signInAnonymously();
    if (error || !data.user) throw error ?? new Error('no guest');
    const guest = createProjectsAdapter(guestClient as SupabaseClient<Database>);
    expect(await guest.joinShared(created.value.shareToken ?? '')).toEqual({ ok: true, value: created.value.id });
    // Guests cannot create projects.
    const refused = await guest.create({ name: 'Nope', description: '', visibility: 'private' });
    expect(!refused.ok && refused.error.code).toBe('forbidden');
  });

  // Counts travel on the project row (a trigger keeps projects.member_count): the list
  // channel hears no one's memberships but the watcher's own.
  it('keeps member counts live as people join and leave, and through a rename', async () => {
    const [a, b, c] = await Promise.all([person('count-a'), person('count-b'), person('count-c')]);
    const created = await a.projects.create({ name: 'Counted', description: '', visibility: 'link' });
    if (!created.ok) throw new Error(created.error.message);
    const { id, shareToken } = created.value;
    // An unrelated project's membership changes must not touch ours.
    const other = await c.projects.create({ name: 'Elsewhere', description: '', visibility: 'link' });
    if (!other.ok) throw new Error(other.error.message);
    const aWatch = watch(a.projects, a.user.id, stops);
    const bWatch = watch(b.projects, b.user.id, stops);
    await Promise.all([
      aWatch.waitFor((f) => f.type === 'projects.channelJoined'),
      bWatch.waitFor((f) => f.type === 'projects.channelJoined'),
    ]);
    expect((await a.projects.list(a.user.id)).ok).toBe(true);
    expect((await b.projects.list(b.user.id)).ok).toBe(true);
    const counted = (watcher: ReturnType<typeof watch>, count: number, name = 'Counted') =>
      watcher.waitFor(
        (f) =>
          f.type === 'projects.upserted' &&
          f.project.id === id &&
          f.project.memberCount === count &&
          f.project.name === name,
      );

    expect(await b.projects.joinShared(shareToken ?? '')).toEqual({ ok: true, value: id });
    await counted(aWatch, 2);
    // The joiner's own stream brings the project with everyone counted.
    await counted(bWatch, 2);

    expect(await c.projects.joinShared(shareToken ?? '')).toEqual({ ok: true, value: id });
    await counted(aWatch, 3);
    await counted(bWatch, 3);

    // Someone joining c's other project is no news for a.
    expect(await b.projects.joinShared(other.value.shareToken ?? '')).toEqual({ ok: true, value: other.value.id });
    await bWatch.waitFor((f) => f.type === 'projects.upserted' && f.project.id === other.value.id);

    const left = await c.client
      .from('project_members')
      .delete()
      .eq('project_id', id)
      .eq('user_id', c.user.id)
      .select('user_id');
    expect(left.error).toBeNull();
    expect(left.data).toHaveLength(1);
    // Both watchers already saw 2 before c joined: wait for a 2 that came after the 3.
    const after3 = (watcher: ReturnType<typeof watch>) =>
      watcher.seen.findIndex(
        (f) => f.type === 'projects.upserted' && f.project.id === id && f.project.memberCount === 3,
      );
    const againTwo = (watcher: ReturnType<typeof watch>) =>
      vi.waitFor(
        () => {
          const from3 = after3(watcher);
          const found = watcher.seen
            .slice(from3)
            .some((f) => f.type === 'projects.upserted' && f.project.id === id && f.project.memberCount === 2);
          if (from3 < 0 || !found) throw new Error(`not yet; saw ${JSON.stringify(watcher.seen)}`);
        },
        { timeout: 10_000, interval: 50 },
      );
    await againTwo(aWatch);
    await againTwo(bWatch);

    // A rename carries the count as it now stands.
    expect((await a.projects.update(id, { name: 'Counted again' })).ok).toBe(true);
    await counted(bWatch, 2, 'Counted again');
    await counted(aWatch, 2, 'Counted again');
    expect(aWatch.seen.some((f) => f.type === 'projects.upserted' && f.project.id === other.value.id)).toBe(false);
  });
});

import { createClient } from '@supabase/supabase-js';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createProjectsAdapter } from '../../src/adapters/supabase/projects.ts';
import { person, watch } from './projects-watch.ts';
import { backendInfo, uniqueEmail } from '../setup/clients.ts';

/**
 * The projects list's live channel tells a person nothing about projects they are not
 * in. Realtime cannot check row level security on a DELETE, so a list that listened to
 * every `project_members` change would hear of each membership removed anywhere (which
 * project, which person). The outsider here is a real supabase-js client whose socket
 * records every frame the server sends, so the test sees what arrived on the wire, not
 * only what the adapter chose to pass on.
 */

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

const asText = (data: WebSocket.RawData): string =>
  (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString('utf8');

/** A signed-in client whose WebSocket keeps a copy of every frame received. */
async function tappedPerson(tag: string) {
  const frames: string[] = [];
  class TappedSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.on('message', (data) => frames.push(asText(data)));
    }
  }
  const { url, anonKey } = backendInfo();
  const client = createClient<Database>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: TappedSocket as never },
  });
  const { data, error } = await client.auth.signUp({ email: uniqueEmail(tag), password: 'correct-horse-battery' });
  if (error) throw error;
  if (!data.user) throw new Error('sign-up returned no user');
  stops.push(() => void client.realtime.disconnect());
  return { client, user: data.user, frames, projects: createProjectsAdapter(client) };
}

describe('projects list channel privacy', () => {
  it("an outsider's list hears nothing of a membership removed in a project they are not in", async () => {
    const [owner, leaver, outsider] = await Promise.all([
      person('priv-owner'),
      person('priv-leaver'),
      tappedPerson('priv-outsider'),
    ]);
    const theirs = await owner.projects.create({ name: 'Not yours', description: '', visibility: 'link' });
    if (!theirs.ok) throw new Error(theirs.error.message);
    expect(await leaver.projects.joinShared(theirs.value.shareToken ?? '')).toEqual({
      ok: true,
      value: theirs.value.id,
    });
    const own = await outsider.projects.create({ name: 'Mine', description: '', visibility: 'private' });
    if (!own.ok) throw new Error(own.error.message);

    const outsiderWatch = watch(outsider.projects, outsider.user.id, stops);
    await outsiderWatch.waitFor((f) => f.type === 'projects.channelJoined');
    expect((await outsider.projects.list(outsider.user.id)).ok).toBe(true);
    // The owner watches too: the same removal is news to them (their count drops).
    const ownerWatch = watch(owner.projects, owner.user.id, stops);
    await ownerWatch.waitFor((f) => f.type === 'projects.channelJoined');
    expect((await owner.projects.list(owner.user.id)).ok).toBe(true);

    const left = await leaver.client
      .from('project_members')
      .delete()
      .eq('project_id', theirs.value.id)
      .eq('user_id', leaver.user.id)
      .select('user_id');
    expect(left.error).toBeNull();
    expect(left.data).toHaveLength(1);
    await ownerWatch.waitFor(
      (f) => f.type === 'projects.upserted' && f.project.id === theirs.value.id && f.project.memberCount === 1,
    );

    // Then something the outsider should hear, in their own project: it comes after the
    // removal in commit order, so anything about the removal would have arrived first.
    expect(await outsider.projects.update(own.value.id, { name: 'Mine, renamed' })).toEqual({ ok: true, value: null });
    await outsiderWatch.waitFor(
      (f) => f.type === 'projects.upserted' && f.project.id === own.value.id && f.project.name === 'Mine, renamed',
    );

    // The tap works: the rename is on the wire...
    expect(outsider.frames.some((frame) => frame.includes('Mine, renamed'))).toBe(true);
    // ...and neither the other project nor the person who left it ever is.
    const leaks = outsider.frames.filter((frame) => frame.includes(theirs.value.id) || frame.includes(leaver.user.id));
    expect(leaks).toEqual([]);
    // Nor does the adapter pass anything about it on. (Project deletions from other test
    // files may show up as removals of unknown ids: a projects DELETE reaches every reader.)
    expect(
      outsiderWatch.seen.filter(
        (f) => JSON.stringify(f).includes(theirs.value.id) || JSON.stringify(f).includes(leaver.user.id),
      ),
    ).toEqual([]);
  });
});

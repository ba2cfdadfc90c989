import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createProfileAdapter } from '../../src/adapters/supabase/profile.ts';
import type { OwnProfileFact } from '../../src/lib/ports/profile.ts';
import { backendInfo, signedInClient } from '../setup/clients.ts';

/** The profile adapter against the real backend: the row, the avatar upload through the bucket's rules. */

// The smallest valid PNG: one transparent pixel.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

async function person(tag: string) {
  const signed = await signedInClient(tag);
  const { url, anonKey } = backendInfo();
  return { ...signed, profile: createProfileAdapter(signed.client as SupabaseClient<Database>, { url, anonKey }) };
}

describe('profile adapter', () => {
  it('loads and updates one\u2019s own profile', async () => {
    const a = await person('prof');
    const loaded = await a.profile.load(a.user.id);
    expect(loaded.ok && loaded.value.displayName).toBe(a.email.split('@')[0]);
    const saved = await a.profile.update(a.user.id, { displayName: ' Ada ', color: '#0090ff' });
    expect(saved.ok && saved.value).toMatchObject({ displayName: 'Ada', color: '#0090ff', avatarUrl: null });
    const blank = await a.profile.update(a.user.id, { displayName: '  ' });
    expect(!blank.ok && blank.error.code).toBe('invalid');
    const badColor = await a.profile.update(a.user.id, { color: 'blue' });
    expect(!badColor.ok && badColor.error.code).toBe('invalid');
  });

  it('uploads an avatar into the caller\u2019s folder and serves it publicly', async () => {
    const a = await person('avatar');
    const file = new Blob([PNG], { type: 'image/png' });
    const facts = await lastValueFrom(
      a.profile.uploadAvatar(a.user.id, { file, name: 'me.png', type: 'image/png', size: file.size }).pipe(toArray()),
    );
    const finished = facts.find((f) => f.type === 'upload.finished');
    expect(facts[0]).toEqual({ type: 'upload.progressed', loaded: PNG.length, total: PNG.length });
    expect(finished?.type === 'upload.finished' && finished.path).toMatch(
      new RegExp(`^${a.user.id}/avatar-\\d+\\.png$`),
    );
    if (finished?.type !== 'upload.finished') return;
    const saved = await a.profile.update(a.user.id, { avatarPath: finished.path });
    if (!saved.ok) throw new Error(saved.error.message);
    const image = await fetch(saved.value.avatarUrl ?? '');
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('refuses files that are too big or of the wrong type before sending a byte', async () => {
    const a = await person('avatar-bad');
    const big = new Blob([new Uint8Array(2 * 1024 * 1024 + 1)], { type: 'image/png' });
    const tooBig = await lastValueFrom(
      a.profile.uploadAvatar(a.user.id, { file: big, name: 'big.png', type: 'image/png', size: big.size }),
    );
    expect(tooBig).toMatchObject({ type: 'upload.failed', code: 'too_big' });
    const text = new Blob(['hello'], { type: 'text/plain' });
    const wrong = await lastValueFrom(
      a.profile.uploadAvatar(a.user.id, { file: text, name: 'a.txt', type: 'text/plain', size: text.size }),
    );
    expect(wrong).toMatchObject({ type: 'upload.failed', code: 'wrong_type' });
  });

  it('watches one\u2019s own profile: the row when the channel joins, then each saved change, and only one\u2019s own', async () => {
    const [a, b] = await Promise.all([person('watch-a'), person('watch-b')]);
    const seen: OwnProfileFact[] = [];
    const watching = a.profile.watch(a.user.id).subscribe((fact) => seen.push(fact));
    try {
      await expect
        .poll(() => seen.map((f) => f.profile.displayName), { timeout: 5_000 })
        .toEqual([a.email.split('@')[0]]);
      expect(seen[0]).toMatchObject({ type: 'profile.changed', profile: { id: a.user.id, avatarUrl: null } });
      // b owns a public project, so RLS lets a read b's profile: only the watch's filter
      // keeps b's rename out. Ours commits after it and changes arrive in commit order, so
      // once ours is here, theirs would have been too.
      const shared = await b.client
        .from('projects')
        .insert({ name: 'Public', visibility: 'public' })
        .select('id')
        .single();
      expect(shared.error).toBeNull();
      expect((await b.profile.update(b.user.id, { displayName: 'Bea' })).ok).toBe(true);
      expect((await a.profile.update(a.user.id, { displayName: 'Ada Renamed', color: '#46a758' })).ok).toBe(true);
      await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(2);
      expect(seen[1]).toMatchObject({
        type: 'profile.changed',
        profile: { id: a.user.id, displayName: 'Ada Renamed', color: '#46a758' },
      });
    } finally {
      watching.unsubscribe();
    }
  });
});

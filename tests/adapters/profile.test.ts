import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createProfileAdapter } from '../../src/adapters/supabase/profile.ts';
import { backendInfo, signedInClient } from '../setup/clients.ts';

/** The profile adapter against the real backend: the row, the avatar upload through the bucket's rules. */

// The smallest valid PNG: one transparent pixel.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

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
    const facts = await lastValueFrom(a.profile.uploadAvatar(a.user.id, { file, name: 'me.png', type: 'image/png', size: file.size }).pipe(toArray()));
    const finished = facts.find((f) => f.type === 'upload.finished');
    expect(facts[0]).toEqual({ type: 'upload.progressed', loaded: PNG.length, total: PNG.length });
    expect(finished?.type === 'upload.finished' && finished.path).toMatch(new RegExp(`^${a.user.id}/avatar-\\d+\\.png$`));
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
    const tooBig = await lastValueFrom(a.profile.uploadAvatar(a.user.id, { file: big, name: 'big.png', type: 'image/png', size: big.size }));
    expect(tooBig).toMatchObject({ type: 'upload.failed', code: 'too_big' });
    const text = new Blob(['hello'], { type: 'text/plain' });
    const wrong = await lastValueFrom(a.profile.uploadAvatar(a.user.id, { file: text, name: 'a.txt', type: 'text/plain', size: text.size }));
    expect(wrong).toMatchObject({ type: 'upload.failed', code: 'wrong_type' });
  });
});

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminDb, anonClient, serviceClient } from '../setup/clients.ts';
import { bucketDir, listFiles, makeBucket, userClient } from './storage-helpers.ts';

const RLS_REFUSAL = { statusCode: '403', message: 'new row violates row-level security policy' };

/**
 * Owner-only folders, the policy every Supabase tutorial writes: a user may touch only
 * keys under `<their uid>/`. Each policy is limited to this file's bucket so that the
 * test files running alongside are unaffected.
 */
describe('storage RLS on storage.objects decides every operation', () => {
  let db: pg.Client;
  let bucket: string;
  let locked: string;
  const tag = randomUUID().slice(0, 8);

  beforeAll(async () => {
    db = await adminDb();
    bucket = await makeBucket('rls');
    locked = await makeBucket('rls-none');
    const own = `bucket_id = '${bucket}' and (storage.foldername(name))[1] = auth.uid()::text`;
    await db.query(
      `create policy "rls ${tag} insert" on storage.objects for insert to authenticated with check (${own})`,
    );
    await db.query(`create policy "rls ${tag} select" on storage.objects for select to authenticated using (${own})`);
    await db.query(`create policy "rls ${tag} delete" on storage.objects for delete to authenticated using (${own})`);
  });

  afterAll(async () => {
    for (const op of ['insert', 'select', 'delete', 'update'])
      await db.query(`drop policy if exists "rls ${tag} ${op}" on storage.objects`);
    await db.end();
  });

  async function rowCount(bucketId: string): Promise<number> {
    const result = await db.query('select count(*)::int as n from storage.objects where bucket_id = $1', [bucketId]);
    return (result.rows[0] as { n: number }).n;
  }

  it('refuses an upload no policy allows, leaving no row and no file', async () => {
    const { client, sub } = userClient();
    const { error } = await client.storage.from(locked).upload(`${sub}/a.txt`, Buffer.from('nope'));
    expect(error).toMatchObject({ ...RLS_REFUSAL, status: 400 });
    const blob = await client.storage.from(locked).upload(`${sub}/b.txt`, new Blob(['nope']));
    expect(blob.error).toMatchObject(RLS_REFUSAL);
    expect(await rowCount(locked)).toBe(0);
    expect(await listFiles(bucketDir(locked))).toEqual([]);
    const anon = await anonClient().storage.from(bucket).upload('x/a.txt', Buffer.from('anon'));
    expect(anon.error).toMatchObject(RLS_REFUSAL);
  });

  it('lets a user write and read only inside their own folder', async () => {
    const alice = userClient();
    const bob = userClient();
    const mine = await alice.client.storage.from(bucket).upload(`${alice.sub}/notes.txt`, Buffer.from('alice'));
    expect(mine.error).toBeNull();
    const theirs = await alice.client.storage.from(bucket).upload(`${bob.sub}/forged.txt`, Buffer.from('evil'));
    expect(theirs.error).toMatchObject(RLS_REFUSAL);

    const row = await db.query('select owner, owner_id from storage.objects where bucket_id = $1 and name = $2', [
      bucket,
      `${alice.sub}/notes.txt`,
    ]);
    expect(row.rows[0]).toEqual({ owner: alice.sub, owner_id: alice.sub });

    expect(await (await alice.client.storage.from(bucket).download(`${alice.sub}/notes.txt`)).data!.text()).toBe(
      'alice',
    );
    const peek = await bob.client.storage.from(bucket).download(`${alice.sub}/notes.txt`);
    expect(peek.error).not.toBeNull();
    expect((await bob.client.storage.from(bucket).exists(`${alice.sub}/notes.txt`)).data).toBe(false);
    expect((await bob.client.storage.from(bucket).list(alice.sub)).data).toEqual([]);
    expect((await alice.client.storage.from(bucket).list(alice.sub)).data!.map((e) => e.name)).toEqual(['notes.txt']);
    const sign = await bob.client.storage.from(bucket).createSignedUrl(`${alice.sub}/notes.txt`, 60);
    expect(sign.error).toMatchObject({ statusCode: '404' });
    const many = await bob.client.storage.from(bucket).createSignedUrls([`${alice.sub}/notes.txt`], 60);
    expect(many.data![0]).toMatchObject({
      signedURL: null,
      error: 'Either the object does not exist or you do not have access to it',
    });
  });

  it('needs UPDATE to overwrite (upsert) and to move; DELETE to remove', async () => {
    const alice = userClient();
    const files = alice.client.storage.from(bucket);
    expect((await files.upload(`${alice.sub}/v.txt`, Buffer.from('v1'))).error).toBeNull();
    const overwrite = await files.upload(`${alice.sub}/v.txt`, Buffer.from('v2'), { upsert: true });
    expect(overwrite.error).not.toBeNull();
    expect(await (await files.download(`${alice.sub}/v.txt`)).data!.text()).toBe('v1');
    const move = await files.move(`${alice.sub}/v.txt`, `${alice.sub}/w.txt`);
    expect(move.error).not.toBeNull();

    const update = `bucket_id = '${bucket}' and (storage.foldername(name))[1] = auth.uid()::text`;
    await db.query(
      `create policy "rls ${tag} update" on storage.objects for update to authenticated using (${update}) with check (${update})`,
    );
    expect((await files.upload(`${alice.sub}/v.txt`, Buffer.from('v2'), { upsert: true })).error).toBeNull();
    expect(await (await files.download(`${alice.sub}/v.txt`)).data!.text()).toBe('v2');
    expect((await files.move(`${alice.sub}/v.txt`, `${alice.sub}/w.txt`)).error).toBeNull();
    const escape = await files.move(`${alice.sub}/w.txt`, `someone-else/w.txt`);
    expect(escape.error).toMatchObject(RLS_REFUSAL);

    const bob = userClient();
    const removed = await bob.client.storage.from(bucket).remove([`${alice.sub}/w.txt`]);
    expect(removed.data).toEqual([]);
    expect((await files.exists(`${alice.sub}/w.txt`)).data).toBe(true);
    expect((await files.remove([`${alice.sub}/w.txt`])).data).toHaveLength(1);
    expect((await files.exists(`${alice.sub}/w.txt`)).data).toBe(false);
  });

  it('refuses a signed upload URL to whoever may not insert there', async () => {
    const alice = userClient();
    const refused = await alice.client.storage.from(bucket).createSignedUploadUrl('elsewhere/x.txt');
    expect(refused.error).toMatchObject(RLS_REFUSAL);
    const allowed = await alice.client.storage.from(bucket).createSignedUploadUrl(`${alice.sub}/signed.txt`);
    expect(allowed.error).toBeNull();
    const up = await anonClient()
      .storage.from(bucket)
      .uploadToSignedUrl(`${alice.sub}/signed.txt`, allowed.data!.token, Buffer.from('via token'));
    expect(up.error).toBeNull();
    const owner = await db.query('select owner_id from storage.objects where bucket_id = $1 and name = $2', [
      bucket,
      `${alice.sub}/signed.txt`,
    ]);
    expect(owner.rows[0]).toEqual({ owner_id: alice.sub });
  });

  it('keeps bucket management behind storage.buckets RLS', async () => {
    const { client, sub } = userClient();
    const id = `rls-user-${tag}`;
    const created = await client.storage.createBucket(id);
    expect(created.error).toMatchObject(RLS_REFUSAL);
    expect((await client.storage.listBuckets()).data!.some((b) => b.id === bucket)).toBe(false);
    await db.query(
      `create policy "rls ${tag} bucket insert" on storage.buckets for insert to authenticated with check (id = '${id}')`,
    );
    try {
      expect((await client.storage.createBucket(id)).error).toBeNull();
      const row = await db.query('select owner_id from storage.buckets where id = $1', [id]);
      expect(row.rows[0]).toEqual({ owner_id: sub });
      // Still invisible: there is no SELECT policy on buckets.
      expect((await client.storage.getBucket(id)).error).toMatchObject({ statusCode: '404' });
    } finally {
      await db.query(`drop policy "rls ${tag} bucket insert" on storage.buckets`);
      await serviceClient().storage.deleteBucket(id);
    }
  });
});

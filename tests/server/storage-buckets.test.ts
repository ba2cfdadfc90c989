import { describe, expect, it } from 'vitest';
import { serviceClient } from '../setup/clients.ts';
import { bucketDir, listFiles, storageFetch, uniqueBucket } from './storage-helpers.ts';

describe('storage buckets through supabase-js (service role)', () => {
  it('creates, reads, lists, updates and deletes a bucket', async () => {
    const storage = serviceClient().storage;
    const id = uniqueBucket('bkt');
    const created = await storage.createBucket(id, {
      public: false,
      fileSizeLimit: '1MB',
      allowedMimeTypes: ['image/*', 'text/plain'],
    });
    expect(created).toEqual({ data: { name: id }, error: null });

    const got = await storage.getBucket(id);
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({
      id,
      name: id,
      public: false,
      file_size_limit: 1_000_000,
      allowed_mime_types: ['image/*', 'text/plain'],
    });
    expect(got.data).not.toHaveProperty('type');
    expect(got.data!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const listed = await storage.listBuckets();
    expect(listed.data!.some((b) => b.id === id)).toBe(true);
    const searched = await storage.listBuckets({ search: id.slice(0, 12), limit: 5 });
    expect(searched.data!.map((b) => b.id)).toContain(id);

    const updated = await storage.updateBucket(id, { public: true, fileSizeLimit: 2048, allowedMimeTypes: null });
    expect(updated).toEqual({ data: { message: 'Successfully updated' }, error: null });
    expect((await storage.getBucket(id)).data).toMatchObject({
      public: true,
      file_size_limit: 2048,
      allowed_mime_types: null,
    });

    const deleted = await storage.deleteBucket(id);
    expect(deleted).toEqual({ data: { message: 'Successfully deleted' }, error: null });
    expect((await storage.getBucket(id)).error).toMatchObject({ statusCode: '404', message: 'Bucket not found' });
  });

  it('refuses duplicates, bad names and bad limits in hosted shape', async () => {
    const storage = serviceClient().storage;
    const id = uniqueBucket('dupb');
    expect((await storage.createBucket(id)).error).toBeNull();
    const again = await storage.createBucket(id);
    expect(again.error).toMatchObject({ status: 400, statusCode: '409', message: 'The resource already exists' });
    const raw = await storageFetch('/bucket', {
      method: 'POST',
      body: JSON.stringify({ name: id }),
      headers: { 'content-type': 'application/json' },
    });
    expect(await raw.json()).toEqual({
      statusCode: '409',
      code: 'BucketAlreadyExists',
      error: 'Duplicate',
      message: 'The resource already exists',
    });

    for (const name of ['has/slash', ' padded', '..', 'ünïcode']) {
      const bad = await storage.createBucket(name);
      expect(bad.error).toMatchObject({ statusCode: '400', message: 'Bucket name invalid' });
    }
    const badLimit = await storage.createBucket(uniqueBucket('lim'), { public: false, fileSizeLimit: 'lots' });
    expect(badLimit.error).toMatchObject({ statusCode: '400' });
    const badMime = await storage.createBucket(uniqueBucket('mime'), {
      public: false,
      allowedMimeTypes: ['not a mime'],
    });
    expect(badMime.error).toMatchObject({ statusCode: '415' });
    const noName = await storageFetch('/bucket', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(noName.status).toBe(400);
    const notJson = await storageFetch('/bucket', {
      method: 'POST',
      body: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(await notJson.json()).toMatchObject({ statusCode: '400', code: 'InvalidRequest' });
    const noSuch = await storage.updateBucket(uniqueBucket('ghost'), { public: true });
    expect(noSuch.error).toMatchObject({ statusCode: '404' });
  });

  it('refuses to delete a non-empty bucket (409) and empties it', async () => {
    const storage = serviceClient().storage;
    const id = uniqueBucket('full');
    await storage.createBucket(id);
    await storage.from(id).upload('a/b.txt', Buffer.from('b'));
    await storage.from(id).upload('c.txt', Buffer.from('c'));
    const refused = await storage.deleteBucket(id);
    expect(refused.error).toMatchObject({ status: 400, statusCode: '409' });
    const raw = await storageFetch(`/bucket/${id}`, { method: 'DELETE' });
    expect(await raw.json()).toEqual({
      statusCode: '409',
      code: 'ResourceNotEmpty',
      error: 'ResourceNotEmpty',
      message: 'The bucket you tried to delete is not empty',
    });

    const emptied = await storage.emptyBucket(id);
    expect(emptied.error).toBeNull();
    expect((await storage.from(id).list()).data).toEqual([]);
    expect(await listFiles(bucketDir(id))).toEqual([]);
    expect((await storage.deleteBucket(id)).error).toBeNull();
    const gone = await storage.deleteBucket(id);
    expect(gone.error).toMatchObject({ statusCode: '404' });
    const emptyGone = await storage.emptyBucket(id);
    expect(emptyGone.error).toMatchObject({ statusCode: '404' });
  });

  it('answers unknown routes with a 404 in storage shape', async () => {
    const res = await storageFetch('/nothing/here');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ statusCode: '404' });
  });
});

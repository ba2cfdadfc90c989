import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { backendInfo, serviceClient } from '../../setup/clients.ts';
import { makeBucket } from '../storage-helpers.ts';

/** A 40x30 red JPEG, made with sharp. */
function jpeg(): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 0, b: 0 } } })
    .jpeg()
    .toBuffer();
}

/** Storage shapes storage-js's live suite checks, through the real client. */
describe('storage object info', () => {
  it('gives metadata {} (not null) for an object uploaded without user metadata', async () => {
    const bucket = await makeBucket('conf-info');
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('plain.txt', Buffer.from('x'), { contentType: 'text/plain' })).error).toBeNull();
    const info = await storage.info('plain.txt');
    expect(info.error).toBeNull();
    expect(info.data?.metadata).toEqual({});
    expect((await storage.upload('tagged.txt', Buffer.from('y'), { metadata: { k: 'v' } })).error).toBeNull();
    expect((await storage.info('tagged.txt')).data?.metadata).toEqual({ k: 'v' });
  });
});

describe('storage list-v2', () => {
  it('lists by prefix, folds folders with a delimiter and pages with a cursor', async () => {
    const bucket = await makeBucket('conf-v2');
    const storage = serviceClient().storage.from(bucket);
    for (const name of ['docs/b.txt', 'docs/a.txt', 'docs/c.txt', 'docs/deep/d.txt', 'top.txt']) {
      expect((await storage.upload(name, Buffer.from(name))).error).toBeNull();
    }
    const flat = await storage.listV2({ prefix: 'docs' });
    expect(flat.error).toBeNull();
    expect(flat.data).toMatchObject({ hasNext: false, folders: [] });
    expect(flat.data?.objects.map((o) => o.name)).toEqual([
      'docs/a.txt',
      'docs/b.txt',
      'docs/c.txt',
      'docs/deep/d.txt',
    ]);
    expect(flat.data?.objects[0]?.metadata).toMatchObject({ size: 10 });

    const root = await storage.listV2({ with_delimiter: true });
    expect(root.data?.folders).toEqual([{ name: 'docs/', key: 'docs' }]);
    expect(root.data?.objects.map((o) => o.name)).toEqual(['top.txt']);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await storage.listV2({
        prefix: 'docs/',
        with_delimiter: true,
        limit: 2,
        sortBy: { column: 'name', order: 'desc' },
        ...(cursor ? { cursor } : {}),
      });
      expect(res.error).toBeNull();
      seen.push(...(res.data?.folders ?? []).map((f) => f.name), ...(res.data?.objects ?? []).map((o) => o.name));
      if (!res.data?.hasNext) break;
      cursor = res.data.nextCursor;
    }
    expect(seen).toEqual(['docs/deep/', 'docs/c.txt', 'docs/b.txt', 'docs/a.txt']);
  });
});

describe('storage image transformations', () => {
  it('resizes on authenticated and public downloads and through signed URLs, saying what it did', async () => {
    const bucket = await makeBucket('conf-img', { public: true });
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('red.jpg', await jpeg(), { contentType: 'image/jpeg' })).error).toBeNull();

    const small = await storage.download('red.jpg', { transform: { width: 20, height: 10, resize: 'fill' } });
    expect(small.error).toBeNull();
    expect(small.data?.type).toBe('image/jpeg');
    const size = await sharp(Buffer.from(await small.data!.arrayBuffer())).metadata();
    expect([size.width, size.height]).toEqual([20, 10]);

    const publicUrl = storage.getPublicUrl('red.jpg', { transform: { width: 10, format: 'origin' } }).data.publicUrl;
    const fromPublic = await fetch(publicUrl);
    expect(fromPublic.status).toBe(200);
    expect((await sharp(Buffer.from(await fromPublic.arrayBuffer())).metadata()).width).toBe(10);

    const signed = await storage.createSignedUrl('red.jpg', 60, { transform: { width: 8, height: 8, quality: 60 } });
    expect(signed.error).toBeNull();
    const fromSigned = await fetch(signed.data!.signedUrl);
    expect(fromSigned.status).toBe(200);
    expect(fromSigned.headers.get('x-transformations')).toBe('height:8,width:8,resizing_type:fill,quality:60');
    expect((await sharp(Buffer.from(await fromSigned.arrayBuffer())).metadata()).height).toBe(8);
  });
});

describe('storage answers as the CLI does', () => {
  it('refuses bucket calls with neither apikey nor Authorization (Invalid Compact JWS)', async () => {
    const res = await fetch(`${backendInfo().url}/storage/v1/bucket`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: '403', message: 'Invalid Compact JWS' });
  });

  it('queues an empty bucket, and gets a bucket without its type', async () => {
    const bucket = await makeBucket('conf-empty');
    const storage = serviceClient().storage;
    await storage.from(bucket).upload('x.txt', Buffer.from('x'));
    const emptied = await storage.emptyBucket(bucket);
    expect(emptied.data).toEqual({ message: 'Empty bucket has been queued. Completion may take up to an hour.' });
    expect((await storage.from(bucket).list()).data).toEqual([]);
    const got = await storage.getBucket(bucket);
    expect(got.data).not.toHaveProperty('type');
    expect(got.data).toMatchObject({ id: bucket, public: false });
  });
});

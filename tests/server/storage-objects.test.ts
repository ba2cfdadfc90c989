import { describe, expect, it } from 'vitest';
import { serviceClient } from '../setup/clients.ts';
import { bucketDir, listFiles, makeBucket, storageFetch } from './storage-helpers.ts';

describe('storage objects through supabase-js (service role)', () => {
  it('uploads raw bytes, downloads them, and answers {Id, Key} like hosted', async () => {
    const bucket = await makeBucket('obj');
    const storage = serviceClient().storage.from(bucket);
    const { data, error } = await storage.upload('dir/a.txt', Buffer.from('hello world'), {
      contentType: 'text/plain',
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ path: 'dir/a.txt', fullPath: `${bucket}/dir/a.txt` });
    expect(data!.id).toMatch(/^[0-9a-f-]{36}$/);

    const download = await storage.download('dir/a.txt');
    expect(download.error).toBeNull();
    expect(await download.data!.text()).toBe('hello world');
    expect(download.data!.type).toBe('text/plain');
  });

  it('takes a browser-style multipart upload (Blob in field "" plus cacheControl)', async () => {
    const bucket = await makeBucket('multi');
    const storage = serviceClient().storage.from(bucket);
    const blob = new Blob(['<svg/>'], { type: 'image/svg+xml' });
    const { error } = await storage.upload('pics/logo.svg', blob, { cacheControl: '120' });
    expect(error).toBeNull();

    const info = await storage.info('pics/logo.svg');
    expect(info.error).toBeNull();
    expect(info.data).toMatchObject({
      name: 'pics/logo.svg',
      bucketId: bucket,
      size: 6,
      contentType: 'image/svg+xml',
      cacheControl: 'max-age=120',
    });

    // A raw FormData exactly as the browser client builds it.
    const form = new FormData();
    form.append('cacheControl', '3600');
    form.append('', new Blob(['raw form'], { type: 'text/plain' }), 'blob');
    const res = await storageFetch(`/object/${bucket}/pics/form.txt`, {
      method: 'POST',
      body: form,
      headers: { 'x-upsert': 'false' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ Key: `${bucket}/pics/form.txt` });
    const back = await storage.download('pics/form.txt');
    expect(await back.data!.text()).toBe('raw form');
  });

  it('refuses a duplicate with 409 Duplicate unless upsert, and update overwrites', async () => {
    const bucket = await makeBucket('dup');
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('x.txt', Buffer.from('one'))).error).toBeNull();
    const again = await storage.upload('x.txt', Buffer.from('two'));
    expect(again.error).toMatchObject({ statusCode: '409', message: 'The resource already exists' });

    const raw = await storageFetch(`/object/${bucket}/x.txt`, {
      method: 'POST',
      body: 'three',
      headers: { 'content-type': 'text/plain' },
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      statusCode: '409',
      code: 'KeyAlreadyExists',
      error: 'Duplicate',
      message: 'The resource already exists',
    });

    expect((await storage.upload('x.txt', Buffer.from('four'), { upsert: true })).error).toBeNull();
    expect(await (await storage.download('x.txt')).data!.text()).toBe('four');
    expect((await storage.update('x.txt', Buffer.from('five'))).error).toBeNull();
    expect(await (await storage.download('x.txt')).data!.text()).toBe('five');
    // Old versions are gone from disk: one file for one object.
    expect(await listFiles(bucketDir(bucket))).toHaveLength(1);
  });

  it('serves Range requests with 206 and Content-Range, plus ETag, Cache-Control, Last-Modified', async () => {
    const bucket = await makeBucket('range');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('digits.txt', Buffer.from('0123456789'), { contentType: 'text/plain', cacheControl: '60' });
    const full = await storageFetch(`/object/${bucket}/digits.txt`);
    expect(full.status).toBe(200);
    expect(full.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(full.headers.get('cache-control')).toBe('max-age=60');
    expect(full.headers.get('content-type')).toBe('text/plain');
    expect(full.headers.get('last-modified')).toMatch(/GMT$/);
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    await full.arrayBuffer();

    const part = await storageFetch(`/object/${bucket}/digits.txt`, { headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await part.text()).toBe('2345');
    const tail = await storageFetch(`/object/${bucket}/digits.txt`, { headers: { range: 'bytes=-3' } });
    expect(await tail.text()).toBe('789');
    const open = await storageFetch(`/object/${bucket}/digits.txt`, { headers: { range: 'bytes=7-' } });
    expect(open.headers.get('content-range')).toBe('bytes 7-9/10');
    expect(await open.text()).toBe('789');
    const bad = await storageFetch(`/object/${bucket}/digits.txt`, { headers: { range: 'bytes=20-30' } });
    expect(bad.status).toBe(416);
    expect(await bad.json()).toMatchObject({ statusCode: '416', code: 'InvalidRange' });

    const etag = full.headers.get('etag')!;
    const cached = await storageFetch(`/object/${bucket}/digits.txt`, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
  });

  it('answers HEAD, info and exists; a missing object is NoSuchKey', async () => {
    const bucket = await makeBucket('info');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('a/b.json', Buffer.from('{"a":1}'), {
      contentType: 'application/json',
      metadata: { tag: 'x' },
    });
    const head = await storageFetch(`/object/${bucket}/a/b.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('7');
    expect(head.headers.get('content-type')).toBe('application/json');

    const info = await storage.info('a/b.json');
    expect(info.data).toMatchObject({ size: 7, contentType: 'application/json', metadata: { tag: 'x' } });
    expect(info.data!.etag).toMatch(/^"/);
    expect((await storage.exists('a/b.json')).data).toBe(true);
    expect((await storage.exists('a/missing.json')).data).toBe(false);

    const missing = await storageFetch(`/object/${bucket}/a/missing.json`);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      statusCode: '404',
      code: 'NoSuchKey',
      error: 'not_found',
      message: 'Object not found',
    });
    const noBucket = await storageFetch(`/object/no-such-bucket-x/a.txt`);
    expect(await noBucket.json()).toMatchObject({
      statusCode: '404',
      code: 'NoSuchBucket',
      message: 'Bucket not found',
    });
  });

  it('lists folders (id null) and files with prefix, search, sortBy, limit and offset', async () => {
    const bucket = await makeBucket('list');
    const storage = serviceClient().storage.from(bucket);
    for (const name of ['docs/b.txt', 'docs/a.txt', 'docs/C.txt', 'docs/sub/deep.txt', 'docs/sub2/x.txt', 'top.txt']) {
      const { error } = await storage.upload(name, Buffer.from(name), { contentType: 'text/plain' });
      expect(error).toBeNull();
    }
    const root = await storage.list();
    expect(root.data!.map((e) => [e.name, e.id === null])).toEqual([
      ['docs', true],
      ['top.txt', false],
    ]);
    const docs = await storage.list('docs');
    expect(docs.data!.map((e) => e.name)).toEqual(['sub', 'sub2', 'a.txt', 'b.txt', 'C.txt']);
    const folder = docs.data!.find((e) => e.name === 'sub')!;
    expect(folder).toMatchObject({ id: null, metadata: null, updated_at: null });
    const file = docs.data!.find((e) => e.name === 'a.txt')!;
    expect(file.metadata).toMatchObject({ size: 10, mimetype: 'text/plain' });
    // ISO 8601 with milliseconds, as hosted sends (and every browser parses).
    expect(file.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const desc = await storage.list('docs', { sortBy: { column: 'name', order: 'desc' } });
    expect(desc.data!.map((e) => e.name)).toEqual(['sub2', 'sub', 'C.txt', 'b.txt', 'a.txt']);
    const page = await storage.list('docs', { limit: 2, offset: 2 });
    expect(page.data!.map((e) => e.name)).toEqual(['a.txt', 'b.txt']);
    const search = await storage.list('docs', { search: 'su' });
    expect(search.data!.map((e) => e.name)).toEqual(['sub', 'sub2']);
    const byCreated = await storage.list('docs', { sortBy: { column: 'created_at', order: 'asc' } });
    expect(byCreated.data!.slice(2).map((e) => e.name)).toEqual(['b.txt', 'a.txt', 'C.txt']);
  });

  it('moves and copies objects, within and across buckets', async () => {
    const bucket = await makeBucket('mv');
    const other = await makeBucket('mv2');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('from.txt', Buffer.from('moving'));
    const moved = await storage.move('from.txt', 'to/moved.txt');
    expect(moved.error).toBeNull();
    expect(moved.data).toMatchObject({ message: 'Successfully moved' });
    expect((await storage.exists('from.txt')).data).toBe(false);
    expect(await (await storage.download('to/moved.txt')).data!.text()).toBe('moving');

    const copied = await storage.copy('to/moved.txt', 'copy.txt');
    expect(copied.error).toBeNull();
    expect(copied.data).toEqual({ path: `${bucket}/copy.txt` });
    expect(await (await storage.download('copy.txt')).data!.text()).toBe('moving');

    const retyped = await storageFetch('/object/copy', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-metadata': Buffer.from('{"k":"v"}').toString('base64') },
      body: JSON.stringify({
        bucketId: bucket,
        sourceKey: 'copy.txt',
        destinationKey: 'retyped.md',
        copyMetadata: false,
        metadata: { mimetype: 'text/markdown' },
      }),
    });
    expect(retyped.status).toBe(200);
    expect((await storage.info('retyped.md')).data).toMatchObject({
      contentType: 'text/markdown',
      metadata: { k: 'v' },
    });
    await storage.remove(['retyped.md']);

    await storage.upload('busy.txt', Buffer.from('taken'));
    const clash = await storage.move('copy.txt', 'busy.txt');
    expect(clash.error).toMatchObject({ statusCode: '409' });
    const clashCopy = await storage.copy('copy.txt', 'busy.txt');
    expect(clashCopy.error).toMatchObject({ statusCode: '409' });

    const across = await storage.move('copy.txt', 'elsewhere.txt', { destinationBucket: other });
    expect(across.error).toBeNull();
    expect(await (await serviceClient().storage.from(other).download('elsewhere.txt')).data!.text()).toBe('moving');
    const missing = await storage.move('nope.txt', 'x.txt');
    expect(missing.error).toMatchObject({ statusCode: '404' });
    expect(await listFiles(bucketDir(bucket))).toHaveLength(2);
  });

  it("stores empty objects (the dashboard's folder placeholders)", async () => {
    const bucket = await makeBucket('empty');
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('new-folder/.emptyFolderPlaceholder', Buffer.alloc(0))).error).toBeNull();
    expect((await storage.list()).data!.map((e) => [e.name, e.id])).toEqual([['new-folder', null]]);
    const got = await storage.download('new-folder/.emptyFolderPlaceholder');
    expect(got.data!.size).toBe(0);
  });

  it('removes many objects and returns what it removed', async () => {
    const bucket = await makeBucket('rm');
    const storage = serviceClient().storage.from(bucket);
    await storage.upload('a.txt', Buffer.from('a'));
    await storage.upload('d/b.txt', Buffer.from('b'));
    const { data, error } = await storage.remove(['a.txt', 'd/b.txt', 'not-there.txt']);
    expect(error).toBeNull();
    expect(data!.map((o) => o.name).sort()).toEqual(['a.txt', 'd/b.txt']);
    expect((await storage.list()).data).toEqual([]);
    expect(await listFiles(bucketDir(bucket))).toEqual([]);

    await storage.upload('single.txt', Buffer.from('s'));
    const res = await storageFetch(`/object/${bucket}/single.txt`, { method: 'DELETE' });
    expect(await res.json()).toEqual({ message: 'Successfully deleted' });
    const again = await storageFetch(`/object/${bucket}/single.txt`, { method: 'DELETE' });
    expect(await again.json()).toMatchObject({ statusCode: '404', code: 'NoSuchKey' });
  });
});

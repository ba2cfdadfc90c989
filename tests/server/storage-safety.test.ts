import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminDb, backendInfo, serviceClient } from '../setup/clients.ts';
import { bucketDir, listFiles, makeBucket, storageFetch, userToken } from './storage-helpers.ts';

/** Sends a request with the path exactly as written: fetch would resolve dot segments first. */
function rawRequest(method: string, rawPath: string, body = 'payload'): Promise<{ status: number; json: unknown }> {
  const { url, serviceRoleKey } = backendInfo();
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: `/storage/v1${rawPath}`,
        headers: {
          authorization: `Bearer ${serviceRoleKey}`,
          'content-type': 'text/plain',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every file under the test run's directory whose name mentions `marker`. */
async function filesNamed(marker: string): Promise<string[]> {
  const root = path.dirname(backendInfo().dataDir);
  const all = await listFiles(root);
  return all.filter((f) => f.includes(marker));
}

describe('storage keeps bytes inside the bucket directory', () => {
  let bucket: string;
  beforeAll(async () => {
    bucket = await makeBucket('safe');
  });

  it('refuses a path that climbs out of /storage/v1 altogether (gateway 404)', async () => {
    const res = await rawRequest('POST', `/object/${bucket}/../../../escape0.txt`);
    expect(res.status).toBe(404);
  });

  const variants = [
    '../escape1.txt',
    '../../escape1b.txt',
    'a/../../escape1c.txt',
    '%2e%2e/%2e%2e/escape2.txt',
    '%2E%2E/%2E%2E/escape3.txt',
    'a%2f..%2f..%2f..%2fescape4.txt',
    '..%5c..%5cescape5.txt',
    'a\\..\\..\\escape6.txt',
    'dir/%00escape7.txt',
    'dir//escape8.txt',
    './escape9.txt',
    'dir/./escape10.txt',
    '%2fetc/escape11.txt',
    'dir/%01escape12.txt',
  ];

  it.each(variants)('refuses the key %s with 400 InvalidKey', async (key) => {
    const upload = await rawRequest('POST', `/object/${bucket}/${key}`);
    expect(upload.status).toBe(400);
    expect(upload.json).toMatchObject({ statusCode: '400', code: 'InvalidKey' });
    expect((upload.json as { message: string }).message).toMatch(/^Invalid key: /);
    const sign = await rawRequest('POST', `/object/upload/sign/${bucket}/${key}`, '{}');
    expect(sign.status).toBe(400);
  });

  it('refuses traversal through the bucket segment and through JSON keys', async () => {
    for (const raw of ['/object/../escape-b1.txt', '/object/%2e%2e/escape-b2.txt', '/object/./x/escape-b3.txt']) {
      const res = await rawRequest('POST', raw);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('ok.txt', Buffer.from('fine'))).error).toBeNull();
    for (const destination of [
      '../../escape-m1.txt',
      '/abs/escape-m2.txt',
      'a/../../escape-m3.txt',
      'a\\escape-m4.txt',
    ]) {
      const moved = await storage.move('ok.txt', destination);
      expect(moved.error).toMatchObject({ statusCode: '400' });
      const copied = await storage.copy('ok.txt', destination);
      expect(copied.error).toMatchObject({ statusCode: '400' });
    }
    const long = await storage.upload(`${'k'.repeat(1025)}`, Buffer.from('x'));
    expect(long.error).toMatchObject({ statusCode: '400' });
  });

  it('wrote nothing anywhere for any refused key', async () => {
    expect(await filesNamed('escape')).toEqual([]);
    expect(await listFiles(bucketDir(bucket))).toHaveLength(1);
  });
});

describe('storage limits', () => {
  let db: pg.Client;
  beforeAll(async () => {
    db = await adminDb();
  });
  afterAll(async () => {
    await db.end();
  });

  it('refuses an object over the bucket limit with 413, raw, streamed or multipart, leaving nothing', async () => {
    const bucket = await makeBucket('limit', { fileSizeLimit: '1KB' });
    const storage = serviceClient().storage.from(bucket);
    expect((await storage.upload('exact.bin', Buffer.alloc(1000, 1))).error).toBeNull();
    const over = await storage.upload('over.bin', Buffer.alloc(1001, 1));
    expect(over.error).toMatchObject({ statusCode: '413', message: 'The object exceeded the maximum allowed size' });
    const form = await storage.upload('over-form.bin', new Blob([Buffer.alloc(5000, 2)]));
    expect(form.error).toMatchObject({ statusCode: '413' });

    // No Content-Length: the limit must be enforced while streaming.
    const chunks = [Buffer.alloc(800, 3), Buffer.alloc(800, 3)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = await storageFetch(`/object/${bucket}/streamed.bin`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/octet-stream' },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      statusCode: '413',
      code: 'EntityTooLarge',
      error: 'Payload too large',
      message: 'The object exceeded the maximum allowed size',
    });
    const rows = await db.query('select name from storage.objects where bucket_id = $1', [bucket]);
    expect(rows.rows).toEqual([{ name: 'exact.bin' }]);
    expect(await listFiles(bucketDir(bucket))).toHaveLength(1);
  });

  it('refuses a MIME type the bucket does not allow with 415, and accepts wildcards', async () => {
    const bucket = await makeBucket('mime', { allowedMimeTypes: ['image/*', 'text/plain'] });
    const storage = serviceClient().storage.from(bucket);
    const json = await storage.upload('a.json', Buffer.from('{}'), { contentType: 'application/json' });
    expect(json.error).toMatchObject({ statusCode: '415', message: 'mime type application/json is not supported' });
    expect((await storage.upload('a.png', Buffer.from('png'), { contentType: 'image/png' })).error).toBeNull();
    expect((await storage.upload('a.txt', Buffer.from('txt'))).error).toBeNull(); // text/plain;charset=UTF-8
    const blob = await storage.upload('b.json', new Blob(['{}'], { type: 'application/json' }));
    expect(blob.error).toMatchObject({ statusCode: '415' });
    const rows = await db.query('select name from storage.objects where bucket_id = $1 order by name', [bucket]);
    expect(rows.rows).toEqual([{ name: 'a.png' }, { name: 'a.txt' }]);
  });

  it('refuses a bucket limit above the backend maximum', async () => {
    const { error } = await serviceClient().storage.createBucket(`too-big-${Date.now()}`, {
      public: false,
      fileSizeLimit: '100GB',
    });
    expect(error).toMatchObject({ statusCode: '413' });
  });
});

describe('storage and bad tokens', () => {
  it('answers a bad or expired JWT in storage shape; public reads ignore it', async () => {
    const bucket = await makeBucket('jwt', { public: true });
    await serviceClient().storage.from(bucket).upload('pub.txt', Buffer.from('public'));
    const expired = userToken(undefined, -10);
    const upload = await storageFetch(`/object/${bucket}/x.txt`, { method: 'POST', body: 'x', token: expired });
    expect(upload.status).toBe(400);
    expect(await upload.json()).toEqual({
      statusCode: '403',
      code: 'AccessDenied',
      error: 'Unauthorized',
      message: '"exp" claim timestamp check failed',
    });
    const forged = `${userToken().slice(0, -4)}AAAA`;
    const list = await storageFetch(`/bucket`, { token: forged });
    expect(await list.json()).toMatchObject({ statusCode: '403', message: 'signature verification failed' });
    const read = await storageFetch(`/object/public/${bucket}/pub.txt`, { token: forged });
    expect(await read.text()).toBe('public');
    const plain = await storageFetch(`/object/${bucket}/pub.txt`, { token: expired });
    expect(await plain.text()).toBe('public');
    await fs.access(bucketDir(bucket));
  });
});

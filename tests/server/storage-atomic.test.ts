import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminDb, backendInfo, serviceClient } from '../setup/clients.ts';
import { bucketDir, listFiles, makeBucket, userClient } from './storage-helpers.ts';

/** Sends part of a declared body (raw, or the start of a multipart file part), then hangs up. */
function abortedUpload(bucket: string, key: string, multipart = false): Promise<void> {
  const { url, serviceRoleKey } = backendInfo();
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: target.hostname,
      port: target.port,
      method: 'POST',
      path: `/storage/v1/object/${bucket}/${key}`,
      headers: {
        authorization: `Bearer ${serviceRoleKey}`,
        'content-type': multipart ? 'multipart/form-data; boundary=XyZ' : 'text/plain',
        'content-length': 100_000,
      },
    });
    req.on('error', () => resolve());
    const head = multipart
      ? '--XyZ\r\ncontent-disposition: form-data; name=""; filename="blob"\r\ncontent-type: text/plain\r\n\r\n'
      : '';
    req.write(Buffer.concat([Buffer.from(head), Buffer.alloc(40_000, 7)]), () => {
      // Hang up only once the server is demonstrably mid-write (its temp file exists).
      until(async () => (await listFiles(bucketDir(bucket))).some((f) => f.startsWith('#upload-')), 'a temp file').then(
        () => {
          req.destroy();
          resolve();
        },
        (error: unknown) => {
          req.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  });
}

/** Polls `check`; the bound is generous so only something that never happens fails. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('storage writes are all-or-nothing', () => {
  let db: pg.Client;
  const tag = randomUUID().slice(0, 8);
  beforeAll(async () => {
    db = await adminDb();
  });
  afterAll(async () => {
    await db.query(`drop policy if exists "atomic ${tag}" on storage.objects`);
    await db.end();
  });

  it('leaves nothing when the client hangs up mid-upload', async () => {
    const bucket = await makeBucket('abort');
    await abortedUpload(bucket, 'partial.txt');
    // The server notices the hang-up asynchronously: wait for its temp file to go.
    await until(async () => (await listFiles(bucketDir(bucket))).length === 0, 'temp file removal');
    const rows = await db.query('select 1 from storage.objects where bucket_id = $1', [bucket]);
    expect(rows.rowCount).toBe(0);
    // The backend still serves this bucket normally afterwards.
    expect((await serviceClient().storage.from(bucket).upload('whole.txt', Buffer.from('ok'))).error).toBeNull();
  });

  it('leaves nothing when a multipart upload is cut off', async () => {
    const bucket = await makeBucket('abort-form');
    await abortedUpload(bucket, 'partial.txt', true);
    await until(async () => (await listFiles(bucketDir(bucket))).length === 0, 'temp file removal');
    expect((await db.query('select 1 from storage.objects where bucket_id = $1', [bucket])).rowCount).toBe(0);
    expect(
      (
        await serviceClient()
          .storage.from(bucket)
          .upload('whole.txt', new Blob(['ok']))
      ).error,
    ).toBeNull();
  });

  it('rolls back row and file when the policy refuses the final metadata', async () => {
    const bucket = await makeBucket('meta');
    // Passes the early check (no size known yet), refuses the commit (size 10 > 5).
    await db.query(
      `create policy "atomic ${tag}" on storage.objects for insert to authenticated
         with check (bucket_id = '${bucket}' and coalesce((metadata->>'size')::int, 0) <= 5)`,
    );
    const { client } = userClient();
    const small = await client.storage.from(bucket).upload('small.txt', Buffer.from('tiny'));
    expect(small.error).toBeNull();
    const big = await client.storage.from(bucket).upload('big.txt', Buffer.from('0123456789'));
    expect(big.error).toMatchObject({ statusCode: '403', message: 'new row violates row-level security policy' });
    const rows = await db.query('select name from storage.objects where bucket_id = $1', [bucket]);
    expect(rows.rows).toEqual([{ name: 'small.txt' }]);
    const files = await listFiles(bucketDir(bucket));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^small\.txt#/);
  });

  it('keeps exactly one file per object under concurrent overwrites', async () => {
    const bucket = await makeBucket('race');
    const storage = serviceClient().storage.from(bucket);
    const bodies = Array.from({ length: 8 }, (_, i) => Buffer.from(`version ${i} `.repeat(1000)));
    const results = await Promise.all(bodies.map((body) => storage.upload('hot.txt', body, { upsert: true })));
    for (const result of results) expect(result.error).toBeNull();
    const files = await listFiles(bucketDir(bucket));
    expect(files).toHaveLength(1);
    const text = await (await storage.download('hot.txt')).data!.text();
    expect(bodies.map((b) => b.toString())).toContain(text);
    const info = await storage.info('hot.txt');
    expect(info.data!.etag).toBe(`"${createHash('md5').update(text).digest('hex')}"`);
  });

  it('refuses header-unsafe MIME types and cache-control values from multipart fields', async () => {
    const bucket = await makeBucket('hdr');
    const storage = serviceClient().storage.from(bucket);
    const form = new FormData();
    form.append('cacheControl', '60\r\nx-evil: 1');
    form.append('', new Blob(['x'], { type: 'text/plain' }));
    const { error } = await storage.upload('x.txt', form);
    expect(error).toMatchObject({ statusCode: '400' });
    expect(await listFiles(bucketDir(bucket))).toEqual([]);
  });
});

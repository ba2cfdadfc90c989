import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { backendInfo } from '../setup/clients.ts';
import { listFiles, makeBucket, storageFetch } from './storage-helpers.ts';

/** Rule: bad input gets a 4xx in storage's shape, never a 5xx, and bytes never leave the bucket. */
describe('storage under arbitrary input', () => {
  let bucket: string;
  beforeAll(async () => {
    bucket = await makeBucket('fuzz');
  });

  it('answers any key with 2xx or 4xx and writes only inside the bucket', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('..', '.', '', '%2e%2e', '%2F', '%5C', '%00', '\\', '~', 'a b', '?x', '#frag'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), async (segments) => {
        // Encode each segment loosely: keep %xx escapes, escape what fetch would choke on.
        const raw = segments
          .map((s) => s.replace(/[^A-Za-z0-9._~%!$&'()*+,;=:@ -]/g, (c) => encodeURIComponent(c)))
          .join('/');
        const res = await storageFetch(`/object/${bucket}/${raw}`, {
          method: 'POST',
          body: 'x',
          headers: { 'content-type': 'text/plain', 'x-upsert': 'true' },
        });
        const body = (await res.json()) as Record<string, unknown>;
        expect(res.status).toBeLessThan(500);
        // Enough `..` segments climb out of /storage/v1 before the gateway routes: its 404.
        if (res.status !== 200) expect(body.statusCode ?? body.message).toBeDefined();
      }),
      { numRuns: 80 },
    );
    const root = path.join(backendInfo().dataDir, 'storage');
    for (const file of await listFiles(root)) {
      const [first] = file.split(path.sep);
      expect(first).not.toBe('..');
      expect(path.resolve(root, file).startsWith(root + path.sep)).toBe(true);
    }
  });

  it('answers arbitrary JSON bodies on list, move, copy, sign and remove with 2xx or 4xx', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    const body = fc.dictionary(
      fc.constantFrom(
        'prefix',
        'limit',
        'offset',
        'sortBy',
        'search',
        'bucketId',
        'sourceKey',
        'destinationKey',
        'destinationBucket',
        'expiresIn',
        'paths',
        'prefixes',
      ),
      value,
    );
    const routes = [
      ['POST', `/object/list/${bucket}`],
      ['POST', '/object/move'],
      ['POST', '/object/copy'],
      ['POST', `/object/sign/${bucket}`],
      ['DELETE', `/object/${bucket}`],
      ['POST', '/bucket'],
      ['PUT', `/bucket/${bucket}`],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, pathname], json) => {
        const res = await storageFetch(pathname, {
          method,
          body: JSON.stringify(json),
          headers: { 'content-type': 'application/json' },
        });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
  });
});

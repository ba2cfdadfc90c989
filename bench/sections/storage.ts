import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { benchBackend } from '../backend.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

/**
 * Storage: upload and download throughput of one 10 MB object through supabase-js and
 * the gateway (upload = stream to a temp file, md5, RLS row write, rename; download =
 * RLS read, file stream), against a baseline in the same run: the same bytes written
 * and read straight with fs in the same data directory.
 */

const SIZE = 10 * 1024 * 1024;
const RUNS = 9;

function mbPerSecond(bytes: number, millis: number): number {
  return bytes / (1024 * 1024) / (millis / 1000);
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return since(start);
}

/**
 * A second baseline: a bare node:http server that streams the body to a file and the
 * file back, so the figures separate HTTP-on-this-machine from what storage adds.
 */
async function bareHttp(dir: string, bytes: Buffer): Promise<{ up: number[]; down: number[] }> {
  const file = path.join(dir, 'bare.bin');
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const out = createWriteStream(file);
      req.pipe(out);
      out.on('close', () => res.end('ok'));
    } else {
      createReadStream(file).pipe(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const up: number[] = [];
  const down: number[] = [];
  try {
    for (let i = -1; i < RUNS; i++) {
      const u = await timed(async () => {
        await (await fetch(url, { method: 'POST', body: new Uint8Array(bytes) })).text();
      });
      const d = await timed(async () => {
        await (await fetch(url)).arrayBuffer();
      });
      if (i >= 0) {
        up.push(u);
        down.push(d);
      }
    }
  } finally {
    server.close();
  }
  return { up, down };
}

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend();
  try {
    const client = createClient(backend.url, backend.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as never },
    });
    const bucket = 'bench';
    const created = await client.storage.createBucket(bucket, { public: false });
    if (created.error) throw created.error;
    const files = client.storage.from(bucket);
    const bytes = randomBytes(SIZE);

    const uploads: number[] = [];
    const downloads: number[] = [];
    // One warm-up each, not counted.
    for (let i = -1; i < RUNS; i++) {
      const up = await timed(async () => {
        const { error } = await files.upload('big.bin', bytes, {
          upsert: true,
          contentType: 'application/octet-stream',
        });
        if (error) throw error;
      });
      const down = await timed(async () => {
        const { data, error } = await files.download('big.bin');
        if (error) throw error;
        const got = Buffer.from(await data.arrayBuffer());
        if (got.length !== SIZE) throw new Error(`downloaded ${got.length} bytes`);
      });
      if (i >= 0) {
        uploads.push(up);
        downloads.push(down);
      }
    }

    const baseDir = path.join(backend.config.dataDir, 'bench-baseline');
    await fs.mkdir(baseDir, { recursive: true });
    const target = path.join(baseDir, 'big.bin');
    const writes: number[] = [];
    const reads: number[] = [];
    for (let i = -1; i < RUNS; i++) {
      const w = await timed(() => fs.writeFile(target, bytes));
      const r = await timed(async () => {
        const got = await fs.readFile(target);
        if (got.length !== SIZE) throw new Error('short read');
      });
      if (i >= 0) {
        writes.push(w);
        reads.push(r);
      }
    }

    const bare = await bareHttp(baseDir, bytes);
    const up = summarize(uploads).p50;
    const down = summarize(downloads).p50;
    const write = summarize(writes).p50;
    const read = summarize(reads).p50;
    ctx.section(
      `storage: one 10 MB object, median of ${RUNS} runs (supabase-js over HTTP vs fs in the same directory)`,
    );
    ctx.report('upload (upsert) median time', ms(up));
    ctx.report('upload MB/s', mbPerSecond(SIZE, up).toFixed(1));
    ctx.report('baseline fs.writeFile MB/s', mbPerSecond(SIZE, write).toFixed(1));
    ctx.report('bare node:http upload-to-file MB/s', mbPerSecond(SIZE, summarize(bare.up).p50).toFixed(1));
    ctx.report('upload / baseline write', `${((mbPerSecond(SIZE, up) / mbPerSecond(SIZE, write)) * 100).toFixed(1)} %`);
    ctx.report('upload / bare node:http', `${((summarize(bare.up).p50 / up) * 100).toFixed(1)} %`);
    ctx.report('download median time', ms(down));
    ctx.report('download MB/s', mbPerSecond(SIZE, down).toFixed(1));
    ctx.report('baseline fs.readFile MB/s', mbPerSecond(SIZE, read).toFixed(1));
    ctx.report('bare node:http file download MB/s', mbPerSecond(SIZE, summarize(bare.down).p50).toFixed(1));
    ctx.report('download / bare node:http', `${((summarize(bare.down).p50 / down) * 100).toFixed(1)} %`);
    ctx.report(
      'download / baseline read',
      `${((mbPerSecond(SIZE, down) / mbPerSecond(SIZE, read)) * 100).toFixed(1)} %`,
    );
  } finally {
    await backend.cleanup();
  }
}

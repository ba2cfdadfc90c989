import path from 'node:path';
import { benchBackend } from '../backend.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

/**
 * Edge functions: cold start (worker + tsx + imports), the bridge's cost per request
 * against the gateway alone, concurrent throughput, and memory per warm function.
 * Serves the test fixture project, which has functions of every kind.
 */

const FIXTURE = path.resolve('tests/fixtures/functions/supabase');

async function timed(url: string, init?: RequestInit): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  if (res.status >= 500) throw new Error(`${url}: ${res.status}`);
  return since(start);
}

async function sequential(n: number, url: string, init?: RequestInit): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push(await timed(url, init));
  return samples;
}

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend({ supabaseDir: FIXTURE });
  const fn = (name: string) => `${backend.url}/functions/v1/${name}`;
  const auth = { apikey: backend.anonKey, authorization: `Bearer ${backend.anonKey}` };
  try {
    ctx.section('functions: cold start (first request boots the worker)');
    ctx.report('open (no imports)', ms(await timed(fn('open'))));
    ctx.report('echo (relative import)', ms(await timed(fn('echo'), { headers: auth })));
    ctx.report('imports (supabase-js via npm:/jsr:/esm.sh/map)', ms(await timed(fn('imports'), { headers: auth })));

    ctx.section('functions: warm latency, sequential (n = 500)');
    await sequential(50, fn('open'));
    const gatewayOnly = summarize(await sequential(500, fn('not-a-function')));
    const open = summarize(await sequential(500, fn('open')));
    const body = JSON.stringify({ payload: 'x'.repeat(1024) });
    const echo = summarize(
      await sequential(500, fn('echo'), {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      }),
    );
    ctx.report('gateway alone (404 NOT_FOUND) p50 / p99', `${ms(gatewayOnly.p50)} / ${ms(gatewayOnly.p99)}`);
    ctx.report('open GET p50 / p99', `${ms(open.p50)} / ${ms(open.p99)}`);
    ctx.report('echo POST 1 KiB JSON, verify_jwt p50 / p99', `${ms(echo.p50)} / ${ms(echo.p99)}`);
    ctx.report('bridge overhead (open p50 - gateway p50)', ms(open.p50 - gatewayOnly.p50));

    ctx.section('functions: concurrent throughput (2000 requests, 32 in flight)');
    for (const name of ['open', 'counter-a']) {
      const total = 2000;
      let next = 0;
      const start = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < total) {
            next++;
            await timed(fn(name), { headers: auth });
          }
        }),
      );
      const seconds = since(start) / 1000;
      ctx.report(`${name}: requests per second`, (total / seconds).toFixed(0));
    }

    ctx.section('functions: memory');
    const before = process.memoryUsage().rss;
    const names = ['binary', 'stream', 'own-cors', 'counter-b', 'env'];
    for (const name of names) await timed(fn(name), { headers: auth });
    const after = process.memoryUsage().rss;
    ctx.report(
      `process RSS per added warm worker (${names.length} added)`,
      `${((after - before) / names.length / 1024 / 1024).toFixed(1)} MiB`,
    );
  } finally {
    await backend.cleanup();
  }
}

import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { benchApp } from '../served-app.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

/**
 * The project room in a real browser on the embedded backend: page load of /p/<id> to a
 * live room (the "Live" status and the members list), for a signed-in user, ten loads in
 * one browser context (a person reopening the room; assets cached as a browser would).
 * Also the initial JavaScript the page loads, gzip-compressed.
 */

const LOADS = 10;

async function initialJsGzip(dir: string): Promise<number> {
  const html = await fs.readFile(path.join(dir, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+\.js)"/g)].map(
    (m) => m[1] as string,
  );
  let total = 0;
  for (const src of new Set(scripts))
    total += gzipSync(await fs.readFile(path.join(dir, src.replace(/^\//, '')))).length;
  return total;
}

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  const { backend, browser } = bench;
  try {
    const email = `bench-room-${Date.now()}@example.test`;
    const password = 'bench-password-1';
    const client = createClient(backend.url, backend.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    const { error: signUpError } = await client.auth.signUp({ email, password });
    if (signUpError) throw signUpError;
    const { data: project, error } = await client
      .from('projects')
      .insert({ name: 'Bench room' })
      .select('id')
      .single<{ id: string }>();
    if (error) throw error;

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(bench.url);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    const samples: number[] = [];
    for (let i = 0; i < LOADS + 1; i++) {
      const start = process.hrtime.bigint();
      await page.goto(`${bench.url}/p/${project.id}`);
      await page
        .getByRole('status')
        .filter({ hasText: /^Live$/ })
        .waitFor({ timeout: 30_000 });
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      // The first load fills the HTTP cache; it is reported on its own.
      if (i > 0) {
        samples.push(since(start));
        continue;
      }
      ctx.section('room: page load to live room (Chromium, embedded backend)');
      ctx.report('first load (cold cache)', ms(since(start)));
    }
    const s = summarize(samples);
    ctx.report(`warm loads p50 (n = ${s.n})`, ms(s.p50));
    ctx.report('warm loads p95', ms(s.p95));
    ctx.report('warm loads max', ms(s.max));
    const bytes = await initialJsGzip(bench.dir);
    ctx.report('initial JavaScript (gzip)', `${(bytes / 1024).toFixed(1)} KB`, 'under 250 KB');
    await context.close();
  } finally {
    await bench.close();
  }
}

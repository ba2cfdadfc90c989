import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildApp, serveApp } from '../../server/start.ts';
import { launchChromium } from '../../tests/setup/browser.ts';
import { benchBackend } from '../backend.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * The app as a person meets it: the initial JavaScript (every JS file index.html loads,
 * the entry script and its modulepreloads, gzip-compressed with zlib), and the time from
 * navigation to a signed-in projects list showing its project (Chromium, a stored session,
 * a fresh browser context per load so nothing is cached between loads).
 */

const LOADS = 10;

async function initialJs(dir: string): Promise<{ files: number; raw: number; gzip: number }> {
  const html = await fs.readFile(path.join(dir, 'index.html'), 'utf8');
  const refs = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)) if (match[1]) refs.add(match[1]);
  for (const match of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g))
    if (match[1]) refs.add(match[1]);
  let raw = 0;
  let gzip = 0;
  for (const ref of refs) {
    const bytes = await fs.readFile(path.join(dir, ref.replace(/^\//, '')));
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  return { files: refs.size, raw, gzip };
}

export async function run(ctx: BenchContext): Promise<void> {
  const root = path.resolve('.');
  const tmp = path.resolve('bench/.tmp');
  await fs.mkdir(tmp, { recursive: true });
  const dir = await fs.mkdtemp(path.join(tmp, 'app-'));
  const backend = await benchBackend();
  const browser = await launchChromium();
  try {
    await buildApp({ root, outDir: dir, quiet: true });
    const js = await initialJs(dir);
    ctx.section('app: initial JavaScript (production build, JS loaded by index.html)');
    ctx.report(
      `initial JS gzip (${js.files} file${js.files === 1 ? '' : 's'})`,
      `${(js.gzip / 1024).toFixed(1)} KB`,
      '< 250 KB',
    );
    ctx.report('initial JS raw', `${(js.raw / 1024).toFixed(1)} KB`);

    const server = await serveApp({
      dir,
      port: 0,
      runtime: { supabaseUrl: backend.url, supabaseAnonKey: backend.anonKey },
    });
    try {
      // One person with one project; sign in once through the UI and keep the stored session.
      const setup = await browser.newContext();
      const page = await setup.newPage();
      await page.goto(server.url);
      await page.getByLabel('Email').fill(`bench-${Date.now()}@example.test`);
      await page.getByLabel('Password').fill('bench-password-1');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('button', { name: 'New project' }).click();
      await page.getByRole('dialog').getByLabel('Name').fill('Bench project');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('list', { name: 'Projects' }).getByRole('link', { name: 'Bench project' }).waitFor();
      const storageState = await setup.storageState();
      await setup.close();

      const samples: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        const context = await browser.newContext({ storageState });
        const tab = await context.newPage();
        const start = performance.now();
        await tab.goto(server.url);
        await tab.getByRole('list', { name: 'Projects' }).getByRole('link', { name: 'Bench project' }).waitFor();
        samples.push(performance.now() - start);
        await context.close();
      }
      const summary = summarize(samples);
      ctx.section(`app: page load to signed-in projects list (Chromium, n = ${LOADS}, cold context each)`);
      ctx.report('load -> list shown p50', ms(summary.p50));
      ctx.report('load -> list shown p99', ms(summary.p99));
    } finally {
      await server.close();
    }
  } finally {
    await browser.close();
    await backend.cleanup();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

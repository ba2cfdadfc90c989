import os from 'node:os';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import ELK from 'elkjs/lib/elk.bundled.js';
import { createServer } from 'vite';
import { estimateText, hintsFrom, layoutDefinition, LayoutCache } from '../../src/lib/layout/index.ts';
import { applyOps } from '../../src/lib/model/index.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { launchChromium } from '../../tests/setup/browser.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * Diagram layout: elkjs layered layout of generated statecharts, in Node with
 * the same function the browser's worker runs (median of a few runs after a warm-up;
 * cold, and after a small edit with the worker's cache), and the frame time while panning a 500-state diagram in Chromium
 * (requestAnimationFrame deltas during scripted drag-panning on the canvas test page).
 */
export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(`layout: elkjs in Node (${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)})`);
  const elk = new ELK();
  // elkjs is a large compiled bundle: its first layouts in a process run while V8 still
  // optimises it (a 50-state chart then takes about three times its steady time). That
  // first layout is reported on its own; the medians follow a warm-up on every size.
  const cold = performance.now();
  await layoutDefinition(elk, generateChart(50), estimateText);
  ctx.report('first layout in a fresh process, 50 states (cold JIT)', ms(performance.now() - cold));
  for (const size of [50, 200, 50, 200, 1000]) await layoutDefinition(elk, generateChart(size), estimateText);
  const aims: Record<number, string> = { 50: '100 ms', 200: '300 ms', 1000: '1,500 ms' };
  for (const [size, runs] of [
    [50, 7],
    [200, 5],
    [1000, 3],
  ] as const) {
    const def = generateChart(size);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await layoutDefinition(elk, def, estimateText);
      samples.push(performance.now() - t0);
    }
    ctx.report(
      `${size} states, ${Object.keys(def.transitions).length} transitions: median of ${runs}`,
      ms(summarize(samples).p50),
      aims[size],
    );
  }

  // What the worker does after each edit: the previous layout as hints and its cache of
  // compound insides, so only the compounds on the edited path go to ELK again.
  ctx.section("layout: after a one-state edit, with the worker's cache (Node)");
  for (const size of [200, 1000]) {
    let def = generateChart(size);
    const cache = new LayoutCache();
    let previous = await layoutDefinition(elk, def, estimateText, null, cache);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const parent = `s_${3 + i * 7}`;
      def = applyOps(def, [
        { type: 'state.add', id: `s_added${i}`, parent, key: `added${i}`, stateType: 'atomic', index: null },
      ]);
      const t0 = performance.now();
      previous = await layoutDefinition(elk, def, estimateText, hintsFrom(previous), cache);
      samples.push(performance.now() - t0);
    }
    ctx.report(`${size} states: add a state, median of 5`, ms(summarize(samples).p50), 'under the cold figure');
  }

  ctx.section('layout: frame time while panning a 500-state diagram (Chromium, headless)');
  const server = await createServer({
    root: path.resolve('tests/e2e/fixtures/canvas'),
    configFile: false,
    logLevel: 'error',
    plugins: [react()],
    server: { host: '127.0.0.1', port: 0, fs: { allow: [path.resolve('.')] } },
  });
  await server.listen();
  const browser = await launchChromium();
  try {
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${address.port}/?generated=500`);
    await page.locator('[data-state-id]').nth(400).waitFor({ state: 'attached', timeout: 300_000 });
    // A string, not a function: tsx's keepNames would inject a helper the page lacks.
    await page.evaluate(`(() => {
      window.__frames = [];
      let last = performance.now();
      const tick = (now) => { window.__frames.push(now - last); last = now; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    })()`);
    await page.mouse.move(400, 850);
    await page.mouse.down();
    for (let i = 0; i < 120; i++) await page.mouse.move(400 + Math.sin(i / 10) * 300, 850 - (i % 40) * 5);
    await page.mouse.up();
    const frames = (await page.evaluate<number[]>('window.__frames')).slice(2);
    const s = summarize(frames);
    ctx.report(
      `frame interval p50 / p95 / max (n = ${s.n})`,
      `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.max)}`,
      '16.7 ms = 60 fps',
    );
  } finally {
    await browser.close();
    await server.close();
  }
}

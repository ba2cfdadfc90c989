import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { run as chartroom } from '../../src/cli/main.ts';
import { exportTypeScript } from '../../src/lib/convert/index.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * `chartroom render --svg` of a generated 200-state machine in a TypeScript file: import,
 * elkjs layout and SVG text, written to disk. In-process runs (p50 and p95 after a first, cold
 * one), and the whole command in a fresh process through its launcher, as a user runs it.
 */
export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(`render: chartroom render --svg (${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)})`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chartroom-render-bench-'));
  try {
    const def = generateChart(200);
    await fs.writeFile(path.join(dir, 'big.ts'), exportTypeScript(def));
    const io = { out: () => {}, err: () => {}, cwd: dir };
    const once = async (): Promise<number> => {
      const t0 = performance.now();
      const code = await chartroom(['render', 'big.ts', '--svg'], io);
      if (code !== 0) throw new Error(`bench: render exited ${code}`);
      return performance.now() - t0;
    };
    ctx.report('200 states: first render in this process (cold JIT)', ms(await once()));
    const samples: number[] = [];
    for (let i = 0; i < 10; i++) samples.push(await once());
    const s = summarize(samples);
    ctx.report(`200 states, ${Object.keys(def.transitions).length} transitions: p50 of ${s.n} in process`, ms(s.p50));
    ctx.report('  p95', ms(s.p95), '2,000 ms');
    const svg = await fs.stat(path.join(dir, 'big.svg'));
    ctx.report('200 states: SVG file size', `${Math.round(svg.size / 1024)} KiB`);
    const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/bin.mjs');
    const t0 = performance.now();
    await promisify(execFile)(process.execPath, [bin, 'render', 'big.ts'], { cwd: dir });
    ctx.report('200 states: `chartroom render` in a fresh process', ms(performance.now() - t0), '2,000 ms');
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

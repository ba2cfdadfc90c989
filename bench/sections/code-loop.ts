import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run as chartroom } from '../../src/cli/main.ts';
import { describeDiff } from '../../src/lib/canvas-ops/describe-diff.ts';
import { importTypeScript } from '../../src/lib/convert/index.ts';
import { writeBackTypeScript } from '../../src/lib/convert/ts-write-back.ts';
import { applyOp } from '../../src/lib/model/index.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { machineSource } from '../code-loop-source.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';
import { benchApp } from '../served-app.ts';
import { person, signedInPage, watch } from './canvas.ts';

/**
 * The code <-> room loop (`chartroom` in process): import of a 100-state TypeScript file as
 * a team writes one (bench/code-loop-source.ts); write-back of a one-state rename into it;
 * the structural diff in words and the whole `chartroom diff` (session, the room's machine
 * over the embedded backend, import, diff) on a 200-state file; and `chartroom watch`: a
 * save of the file until a peer's Chromium diagram draws the new state. `render --svg` of
 * 200 states is the render section. Each figure after warm-up runs, p50 and p95.
 */

const RUNS = 20;
const WARMUP = 3;
const SAVES = 10;
const PASSWORD = 'bench-password-1';

function timed(runs: number, fn: () => void): number[] {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + runs; i++) {
    const t0 = performance.now();
    fn();
    if (i >= WARMUP) samples.push(performance.now() - t0);
  }
  return samples;
}

async function timedAsync(runs: number, fn: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + runs; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= WARMUP) samples.push(performance.now() - t0);
  }
  return samples;
}

/** Puts an environment variable back as it was (unset stays unset, not "undefined"). */
function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

const imported = (text: string): MachineDefinition => {
  const def = importTypeScript(text).definition;
  if (!def) throw new Error('bench: the generated file does not import');
  return def;
};

const stateKeyed = (def: MachineDefinition, key: string) => {
  const state = Object.values(def.states).find((s) => s.key === key);
  if (!state) throw new Error(`bench: no state ${key}`);
  return state;
};

export async function run(ctx: BenchContext): Promise<void> {
  const load = () => `load ${os.loadavg()[0]?.toFixed(1)}`;
  ctx.section(`code loop: chartroom import, write-back, diff, watch (${os.cpus().length} cores, ${load()})`);
  const row = (label: string, samples: number[], aim: string) => {
    const s = summarize(samples);
    ctx.report(`${label}, p50 (n = ${s.n})`, ms(s.p50));
    ctx.report('  p95', ms(s.p95), aim);
  };

  const source100 = machineSource(100);
  const def100 = imported(source100);
  row(
    `import: ${Object.keys(def100.states).length} states (${Math.round(source100.length / 1024)} KiB of TS)`,
    timed(RUNS, () => imported(source100)),
    '300 ms',
  );
  const renamed = applyOp(def100, { type: 'state.rename', id: stateKeyed(def100, 'stage3').id, key: 'review' });
  row(
    'write-back: one state renamed',
    timed(RUNS, () => {
      const out = writeBackTypeScript(source100, renamed, 'order.ts');
      if (!out.ok || !out.changed) throw new Error('bench: write-back wrote nothing');
    }),
    '100 ms',
  );

  const source200 = machineSource(200);
  const def200 = imported(source200);
  const local200 = source200.replace('    stage5: {', '    stage5b: {').replace(/#order\.stage5'/g, "#order.stage5b'");
  const localDef200 = imported(local200);
  row(
    `describeDiff: ${Object.keys(def200.states).length} states, pure`,
    timed(RUNS, () => describeDiff(localDef200, def200)),
    '1,000 ms',
  );

  const bench = await benchApp();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chartroom-code-loop-'));
  const env = { url: process.env.CHARTROOM_API_URL, key: process.env.CHARTROOM_ANON_KEY };
  process.env.CHARTROOM_API_URL = bench.backend.url;
  process.env.CHARTROOM_ANON_KEY = bench.backend.anonKey;
  const io = { out: () => {}, err: () => {}, cwd: dir };
  const cli = async (...argv: string[]): Promise<number> => chartroom(argv, io);
  try {
    const [a, b] = await Promise.all([
      person(bench.backend.url, bench.backend.anonKey, 'loop-a'),
      person(bench.backend.url, bench.backend.anonKey, 'loop-b'),
    ]);
    const project = await a.client.from('projects').insert({ name: 'Code loop' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const added = await a.client
      .from('project_members')
      .insert({ project_id: project.data.id, user_id: b.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw new Error(added.error.message);
    if ((await cli('login', '--email', a.email, '--password', PASSWORD)) !== 0) throw new Error('bench: login');

    // chartroom diff: the room has the 200-state machine, the file one state renamed.
    await fs.writeFile(path.join(dir, 'big.ts'), source200);
    if ((await cli('push', 'big.ts', '--project', project.data.id)) !== 0) throw new Error('bench: push big.ts');
    await fs.writeFile(path.join(dir, 'big.ts'), local200);
    row(
      `chartroom diff: ${Object.keys(def200.states).length} states vs room`,
      await timedAsync(RUNS, async () => {
        if ((await cli('diff', 'big.ts')) !== 1) throw new Error('bench: diff found no difference');
      }),
      '1,000 ms',
    );

    // chartroom watch: a small file, a save, B's diagram draws the new state.
    const base = source100;
    await fs.writeFile(path.join(dir, 'order.ts'), base);
    if ((await cli('push', 'order.ts', '--project', project.data.id)) !== 0) throw new Error('bench: push order.ts');
    const links = JSON.parse(await fs.readFile(path.join(dir, 'chartroom.json'), 'utf8')) as {
      machines: { file: string; machineId: string }[];
    };
    const machineId = links.machines.find((m) => m.file === 'order.ts')?.machineId;
    if (!machineId) throw new Error('bench: order.ts is not linked');
    const lines: string[] = [];
    const abort = new AbortController();
    const watching = chartroom(['watch', 'order.ts'], {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      cwd: dir,
      signal: abort.signal,
    });
    const page = await signedInPage(bench.browser, bench.url, b.email);
    await page.goto(`${bench.url}/p/${project.data.id}/m/${machineId}`);
    await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-state-path="stage0"]').waitFor({ timeout: 60_000 });
    const saves: number[] = [];
    for (let i = 0; i < WARMUP + SAVES; i++) {
      // Each save adds one top-level state `extra<i>` (the one before it goes).
      const text = base.replace("    done: { type: 'final' },", `    extra${i}: {},\n    done: { type: 'final' },`);
      const seen = watch(page, `[data-state-path="extra${i}"]`, null, null);
      // Node's and Chromium's clocks are both the wall clock (timeOrigin + now()).
      const t0 = performance.timeOrigin + performance.now();
      await fs.writeFile(path.join(dir, 'order.ts'), text);
      const t1 = await seen;
      if (i >= WARMUP) saves.push(t1 - t0);
    }
    abort.abort();
    if ((await watching) !== 0) throw new Error(`bench: watch ended badly: ${lines.join(' | ')}`);
    row("watch: save -> peer's diagram", saves, '500 ms');
    ctx.report('  load at the end', load());
    await page.context().close();
  } finally {
    restore('CHARTROOM_API_URL', env.url);
    restore('CHARTROOM_ANON_KEY', env.key);
    await fs.rm(dir, { recursive: true, force: true });
    await bench.close();
  }
}

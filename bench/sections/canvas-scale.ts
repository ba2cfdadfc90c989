import { generateChart } from '../../src/lib/layout/generate.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';
import { benchApp } from '../served-app.ts';
import { reportProfile, startProfile } from '../bigchart-probe.ts';
import { renameRounds, twoOnOneMachine } from './canvas.ts';

/**
 * A remote edit down to the peer's diagram as the chart grows: two Chromium contexts on
 * the built app, A renames a top-level state in place, and the time runs from A's Enter
 * to the new name in B's DOM, on a 10-state chart and on a 1,000-state one (generated,
 * compounds nested; B's Fit may show it as an overview, the renamed state is always
 * shown). The ratio is the figure: applying a remote edit should not grow with the chart.
 * The two charts are open at once and renamed in turn, round by round.
 */

const SAMPLES = 15;
const WARMUP = 3;

/**
 * BENCH_CANVAS_SCALE_PROFILE=1 (or =b): after the 1,000-state rounds, where B's main thread
 * spends a few more renames; =a: where A's does (the editor's tab, from its double-click to
 * its commit request and the echo); bench/bigchart-probe.ts.
 */
const PROFILE_WHO = process.env.BENCH_CANVAS_SCALE_PROFILE;
const PROFILE = PROFILE_WHO === 'a' ? 'A' : PROFILE_WHO === '1' || PROFILE_WHO === 'b' ? 'B' : null;

const topLevelKey = (def: MachineDefinition): string => {
  const first = def.states[def.root]!.children[0]!;
  return def.states[first]!.key;
};

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  try {
    // Both charts open side by side, their rounds taken in turn: a machine shared with other
    // work slows both sizes alike, so the ratio holds while the load moves.
    const charts = [];
    for (const size of [10, 1000]) {
      const definition = generateChart(size);
      const { pageA, pageB } = await twoOnOneMachine(bench, `scale-${size}`, definition);
      const key = topLevelKey(definition);
      for (const page of [pageA, pageB])
        await page.getByRole('button', { name: `state ${key}`, exact: true }).waitFor({ timeout: 60_000 });
      charts.push({ size, pageA, pageB, key, name: key, times: [] as number[] });
    }
    for (let i = 0; i < WARMUP + SAMPLES; i++)
      for (const chart of charts) {
        const next = `${chart.key}x${i}`;
        const [t] = await renameRounds(chart.pageA, chart.pageB, chart.name, () => next, 0, 1, true);
        if (i >= WARMUP && t !== undefined) chart.times.push(t);
        chart.name = next;
      }
    const big = charts[1]!;
    if (PROFILE) {
      const cdp = await startProfile(PROFILE === 'A' ? big.pageA : big.pageB);
      await renameRounds(big.pageA, big.pageB, big.name, (i) => `${big.key}p${i}`, 0, 10, true);
      console.log(`${PROFILE}'s main thread over 10 renames, ${big.size} states:`);
      await reportProfile(cdp, bench.dir, 30);
    }
    for (const chart of charts) {
      await chart.pageA.context().close();
      await chart.pageB.context().close();
    }
    const figures = charts.map((c) => ({ size: c.size, s: summarize(c.times) }));
    ctx.section("canvas at scale: a rename in A -> the new name in B's diagram, by chart size (two Chromium contexts)");
    for (const { size, s } of figures)
      ctx.report(`${size} states: p50 / p95 (n = ${s.n})`, `${ms(s.p50)} / ${ms(s.p95)}`);
    const [small, large] = figures.map((f) => f.s);
    ctx.report('1,000 states / 10 states, p50', `x${(large!.p50 / small!.p50).toFixed(2)}`, 'x1.20 or less');
  } finally {
    await bench.close();
  }
}

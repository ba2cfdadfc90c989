import type { Page } from 'playwright-core';
import type { Json } from '../../src/adapters/supabase/database.types.ts';
import { checkpointNow } from '../../src/adapters/supabase/machines.ts';
import { importXState } from '../../src/lib/model/import.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';
import { benchApp } from '../served-app.ts';
import { person, signedInPage } from './canvas.ts';
import { openPanel } from './simulation-live.ts';

/**
 * The Timeline with 10,000 entries, scrolled ("frame interval while scrolling,
 * p95 <= 17 ms"): one simulation of 10,000 events seeded straight into the tables, the
 * machine opened in Chromium on the built app with its Timeline panel. In the page, a
 * requestAnimationFrame loop moves the list's scrollTop by a few rows every frame, down
 * and back up, and records the interval between frames. Baseline in the same run and
 * page: the same loop without scrolling (what a frame costs the page when idle).
 */

const ENTRIES = 10_000;
/**
 * Ways of the list's CSS, each a style on top of timeline.css; the first is as shipped (the
 * scroller alone has `contain: strict`). Containing the list and each fixed-height row too,
 * with `will-change` on the scroller, was tried (item 4) and measured no better
 * under load; it stays here as the comparison.
 */
const WAYS: { name: string; css: string }[] = [
  { name: 'as shipped (the scroller contained)', css: '' },
  {
    name: 'list and rows contained too, will-change on the scroller',
    css: '.tl-list, .tl-entry { contain: strict; } .tl-scroll { will-change: transform; }',
  },
  { name: 'nothing contained', css: '.tl-scroll { contain: none !important; }' },
];
const FRAMES = 600;
/** Rows scrolled per frame: a fast flick (10 rows, 280 px, every 16.7 ms). */
const STEP_ROWS = 10;

/** Frame intervals in the page, scrolling the timeline `step` px a frame (0: not scrolling). */
function frames(page: Page, step: number): Promise<number[]> {
  const args = JSON.stringify({ frames: FRAMES, step });
  return page.evaluate<number[]>(`new Promise((resolve) => {
    const { frames, step } = ${args};
    const el = document.querySelector('[data-testid="timeline-scroll"]');
    const out = [];
    let last = null;
    let dir = 1;
    const tick = (t) => {
      if (last !== null) out.push(t - last);
      last = t;
      if (step > 0) {
        const max = el.scrollHeight - el.clientHeight;
        if (el.scrollTop + step * dir > max || el.scrollTop + step * dir < 0) dir = -dir;
        el.scrollTop += step * dir;
      }
      if (out.length < frames) requestAnimationFrame(tick);
      else resolve(out);
    };
    requestAnimationFrame(tick);
  })`);
}

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  const { backend, browser } = bench;
  try {
    const a = await person(backend.url, backend.anonKey, 'timeline');
    const project = await a.client.from('projects').insert({ name: 'Bench timeline' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const definition = importXState(
      { id: 'flip', initial: 'left', states: { left: { on: { FLIP: 'right' } }, right: { on: { FLOP: 'left' } } } },
      { name: 'flip' },
    );
    const machine = await a.client
      .from('machines')
      .insert({ project_id: project.data.id, name: 'flip', definition: definition as unknown as Json })
      .select('id')
      .single();
    if (machine.error) throw new Error(machine.error.message);
    // A simulation pins the stored checkpoint (src/adapters/supabase/simulations.ts does the same).
    await checkpointNow(a.client, machine.data.id);
    const sim = await a.client.rpc('start_simulation', { p_machine: machine.data.id });
    if (sim.error) throw new Error(sim.error.message);
    // Seeding, not measured: 10,000 events a second apart, as if sent over three hours.
    await backend.pool.query(
      `insert into public.simulation_events (simulation_id, seq, project_id, machine_id, sender, kind, type, created_at)
       select s.id, g, s.project_id, s.machine_id, $2, 'event', case when g % 2 = 1 then 'FLIP' else 'FLOP' end,
              now() - make_interval(secs => $3 - g)
         from public.simulations s, generate_series(1, $3::int) g
        where s.id = $1;
       `,
      [sim.data.id, a.id, ENTRIES],
    );
    await backend.pool.query('update public.simulations set last_seq = $2 where id = $1', [sim.data.id, ENTRIES]);

    const page = await signedInPage(browser, bench.url, a.email);
    await page.goto(`${bench.url}/p/${project.data.id}/m/${machine.data.id}`);
    await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
    await openPanel(page, 'Timeline');
    const list = page.getByRole('list', { name: 'Timeline entries' });
    await page.waitForFunction(
      (n) => parseFloat(document.querySelector<HTMLElement>('.tl-list')?.style.height ?? '0') >= n * 28,
      ENTRIES,
      { timeout: 60_000, polling: 100 },
    );
    const shownRows = await list.locator('li').count();

    // Warm up (JIT, first layouts), then the baseline and each way of the list's CSS, in
    // rounds (the order turned each round). A way is a style put on top of the shipped
    // timeline.css and removed after, so every way scrolls the same page in the same run.
    await frames(page, 28 * STEP_ROWS);
    const idle: number[] = [];
    const byWay = new Map<string, number[]>(WAYS.map((w) => [w.name, []]));
    for (let round = 0; round < 2; round++) {
      idle.push(...(await frames(page, 0)));
      const order = round % 2 === 0 ? WAYS : [...WAYS].reverse();
      for (const way of order) {
        await page.evaluate(`(() => {
          const style = document.createElement('style');
          style.id = 'bench-way';
          style.textContent = ${JSON.stringify(way.css)};
          document.head.append(style);
        })()`);
        byWay.get(way.name)!.push(...(await frames(page, 28 * STEP_ROWS)));
        await page.evaluate(`document.getElementById('bench-way').remove()`);
      }
    }
    const b = summarize(idle);
    ctx.section(
      `timeline: ${ENTRIES.toLocaleString('en')} entries, scrolled in Chromium (${shownRows} rows in the DOM)`,
    );
    ctx.report(`baseline: frame interval, same page not scrolling, p50 (n = ${b.n})`, ms(b.p50));
    ctx.report('  p95', ms(b.p95));
    const shipped = summarize(byWay.get(WAYS[0]!.name)!);
    for (const way of WAYS) {
      const s = summarize(byWay.get(way.name)!);
      ctx.report(`scrolling ${STEP_ROWS} rows a frame, ${way.name}: p50 (n = ${s.n})`, ms(s.p50));
      ctx.report('  p95', ms(s.p95), way === WAYS[0] ? '<= 17 ms' : undefined);
      ctx.report('  p99', ms(s.p99));
      ctx.report('  p95 / not scrolling', `${(s.p95 / b.p95).toFixed(2)}x`);
      if (way !== WAYS[0]) ctx.report('  shipped / this way, p95', `${(shipped.p95 / s.p95).toFixed(2)}x`);
    }
    await page.context().close();
  } finally {
    await bench.close();
  }
}

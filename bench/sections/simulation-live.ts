import type { Page } from 'playwright-core';
import { importXState } from '../../src/lib/model/import.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';
import { benchApp } from '../served-app.ts';
import { directSends, FRAME_RECORDER, frameArrival, sendTiming } from '../sim-breakdown.ts';
import { pointerToCursor, stamp, stampNext, twoOnOneMachine, watch } from './canvas.ts';

/**
 * A shared simulation, browser to browser ("A sends an event -> B's diagram
 * shows the new active state", aim p95 under 50 ms): two Chromium contexts on the built
 * app over the embedded backend, both on one machine with its Simulation panel open. A
 * presses an event button; the time runs from A's click to B's diagram marking the
 * target state `data-active="true"` (a MutationObserver in B). The path: A's RPC appends
 * the event row, realtime carries the row to B, B replays the log and redraws. Both pages
 * read one clock (`performance.timeOrigin + now()`). Baseline in the same run: A's
 * pointer to A's cursor in B's DOM (a broadcast through the same realtime socket).
 * The breakdown (bench/sim-breakdown.ts) splits each send into A's part (click to the
 * request leaving), the request to B's socket having the entry, and B's part (frame to
 * diagram), and times the function straight in PostgreSQL. The same run times the same
 * sends made from the diagram: A clicks the enabled transition's label.
 */

const SAMPLES = 40;
const WARMUP = 5;

const panel = (page: Page) => page.getByRole('region', { name: 'Simulation' });
const active = (state: string) => `[data-state-path="${state}"][data-active="true"]`;

/** Opens a panel of the machine's dock unless it is open already (the tabs toggle). */
export async function openPanel(page: Page, name: 'Simulation' | 'Tests' | 'Timeline'): Promise<void> {
  const tab = page.getByRole('group', { name: 'Panels' }).getByRole('button', { name, exact: true });
  if ((await tab.getAttribute('aria-pressed')) !== 'true') await tab.click();
  await page.getByRole('region', { name }).waitFor();
}

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  try {
    // Two states and one event each way: every send moves the diagram.
    const definition = importXState(
      { id: 'flip', initial: 'left', states: { left: { on: { FLIP: 'right' } }, right: { on: { FLOP: 'left' } } } },
      { name: 'flip' },
    );
    const { a, pageA, pageB } = await twoOnOneMachine(bench, 'sim-live', definition);
    // B records its socket's frames from the start (the app makes its socket on load).
    await pageB.context().addInitScript(FRAME_RECORDER);
    await pageB.reload();
    await pageB.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
    await Promise.all([openPanel(pageA, 'Simulation'), openPanel(pageB, 'Simulation')]);
    await panel(pageA).getByRole('button', { name: 'Simulate', exact: true }).click();
    for (const page of [pageA, pageB]) await page.locator(active('left')).waitFor({ timeout: 30_000 });

    // The panel's event button and the transition's label on A's diagram (a button named by
    // its event while it is enabled) take turns, two sends each, so both figures come from
    // the same minutes of the same run. The rate limit (a burst of 50, then 50 a second per
    // person) holds all 90 sends.
    const sends: number[] = [];
    const labels: number[] = [];
    const labelASide: number[] = [];
    const parts = { aSide: [] as number[], rpc: [] as number[], toSocketB: [] as number[], bSide: [] as number[] };
    for (let i = 0; i < 2 * (WARMUP + SAMPLES); i++) {
      const [event, target] = i % 2 === 0 ? ['FLIP', 'right'] : ['FLOP', 'left'];
      const fromDiagram = i % 4 >= 2;
      const button = fromDiagram
        ? pageA.locator('.diagram').getByRole('button', { name: event, exact: true })
        : panel(pageA).getByRole('button', { name: event, exact: true });
      await button.waitFor();
      const seen = watch(pageB, active(target), null, null);
      await stampNext(pageA, 'click');
      await button.click();
      const t1 = await seen;
      const t0 = await stamp(pageA);
      const request = await sendTiming(pageA);
      const frame = await frameArrival(pageB, i + 1);
      if (i >= 2 * WARMUP && fromDiagram) {
        labels.push(t1 - t0);
        labelASide.push(request.start - t0);
      } else if (i >= 2 * WARMUP) {
        sends.push(t1 - t0);
        parts.aSide.push(request.start - t0);
        parts.rpc.push(request.end - request.start);
        parts.toSocketB.push(frame - request.start);
        parts.bSide.push(t1 - frame);
      }
      // A shows it too before the next send, so each send starts from a settled page.
      await pageA.locator(active(target)).waitFor();
    }

    const pointer = await pointerToCursor(pageA, pageB, a.id, WARMUP, SAMPLES);
    const simulationId = await pageB.evaluate(`(() => {
      const hit = (window.__simFrames ?? [])[0];
      const m = hit && /sim-log:([0-9a-f-]{36})/.exec(hit[1]);
      return m ? m[1] : '';
    })()`);
    const direct = await directSends({
      adminDatabaseUrl: bench.backend.adminDatabaseUrl,
      client: a.client,
      simulationId: String(simulationId),
      pageB,
      types: ['FLIP', 'FLOP'],
      rounds: SAMPLES,
    });

    const s = summarize(sends);
    const p = summarize(pointer);
    ctx.section('simulation: an event, browser to browser (two Chromium contexts, embedded backend)');
    ctx.report(`A presses the panel's event button -> B's diagram, p50 (n = ${s.n})`, ms(s.p50));
    ctx.report('  p95', ms(s.p95), 'under 50 ms');
    ctx.report('  p99', ms(s.p99));
    const l = summarize(labels);
    ctx.report(`A clicks a transition's label on the diagram -> B's diagram, p50 (n = ${l.n})`, ms(l.p50));
    ctx.report('  p95', ms(l.p95), 'under 50 ms');
    ctx.report('  p99', ms(l.p99));
    ctx.report(
      '  A: label click -> send request leaves, p50 / p95',
      `${ms(summarize(labelASide).p50)} / ${ms(summarize(labelASide).p95)}`,
    );
    ctx.report(`baseline: A's pointer -> A's cursor in B's DOM, p50 (n = ${p.n})`, ms(p.p50));
    ctx.report('  p95', ms(p.p95));
    ctx.report('  p99', ms(p.p99));
    ctx.report('simulation event / pointer broadcast, p50', `${(s.p50 / p.p50).toFixed(1)}x`);
    ctx.report('simulation event / pointer broadcast, p95', `${(s.p95 / p.p95).toFixed(1)}x`);
    ctx.section("simulation: where an event's time goes (p50 / p95, same run)");
    const row = (label: string, samples: number[]) => {
      const x = summarize(samples);
      ctx.report(label, `${ms(x.p50)} / ${ms(x.p95)}`);
    };
    row('A: click -> send request leaves', parts.aSide);
    row("A: send request's round trip (HTTP, gateway, PG)", parts.rpc);
    row("request leaves -> B's socket has the entry", parts.toSocketB);
    row('B: socket frame -> diagram shows the state (apply, render)', parts.bSide);
    row('PG: send_simulation_event as A, one round trip', direct.call);
    row('  the same call rolled back (no commit)', direct.rolledBack);
    row("PG call -> B's socket has the entry", direct.toB);
    await pageA.context().close();
    await pageB.context().close();
  } finally {
    await bench.close();
  }
}

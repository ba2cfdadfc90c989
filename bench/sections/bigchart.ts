import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Json } from '../../src/adapters/supabase/database.types.ts';
import { autoCollapsed, collapseView } from '../../src/lib/layout/collapse.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { exportXState } from '../../src/lib/model/export.ts';
import { importXState } from '../../src/lib/model/import.ts';
import { PROBE_SCRIPT, reportProbe, reportProfile, startProfile } from '../bigchart-probe.ts';
import { benchApp } from '../served-app.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';
import { person, signedInPage, stamp, stampNext } from './canvas.ts';

/**
 * Big charts at a peer (a 100-state chart took 11-31 s to appear at
 * the other browser, which threw React error #185). Two Chromium contexts on the built
 * app, on one machine: A pastes a generated chart's config into the code view and
 * applies it; the time runs from A's click on Apply to B's diagram showing every state
 * that is open (deeper compounds start collapsed, src/lib/layout/collapse.ts). Errors
 * thrown in B's page are counted. Baseline in the same run: the same chart appearing in
 * A's own diagram (no network, no peer).
 */

/** Samples per size: the 1,000-state runs take seconds each. */
const RUNS: Record<number, number> = { 100: 7, 1000: 3 };

/** The chart sizes to measure; BENCH_BIGCHART_SIZES=1000 picks one. */
const SIZES = (process.env.BENCH_BIGCHART_SIZES ?? '100,1000').split(',').map(Number);

/** BENCH_BIGCHART_PROFILE=1: one sample per size, with where each page spent its time (bench/bigchart-probe.ts). */
const PROFILE = process.env.BENCH_BIGCHART_PROFILE === '1';

/** How long one sample may wait for a chart to show before the section fails, naming what it waited for. */
const WAIT_MS = 60_000;

/**
 * In `page`: resolves with the clock time once `count` states are drawn, they and the
 * states their collapsed boxes say they hide add up to the whole chart (`total`: a chart
 * still arriving in batches does not count), and nothing is being laid out (no "Laying out…",
 * and no layout under way: a chart turned to fit the pane is laid out twice). Rejects after
 * WAIT_MS with what the page showed instead.
 */
function drawn(page: Page, who: string, count: number, total: number): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve, reject) => {
    const seen = () => {
      const states = document.querySelectorAll('[data-state-id]');
      let inside = 0;
      for (const s of states) inside += Number(s.getAttribute('data-hidden') ?? 0);
      const status = document.querySelector('.canvas-status[role=status]');
      const alert = document.querySelector('.canvas-status[role=alert]');
      const busy = document.querySelector('.canvas-stage[data-layout=busy]') !== null;
      return { drawn: states.length, inside, status: status ? status.textContent : null, alert: alert ? alert.textContent : null, busy };
    };
    const done = () => {
      const s = seen();
      return s.drawn >= ${count} && s.drawn + s.inside >= ${total} && s.status === null && !s.busy;
    };
    if (done()) return resolve(performance.timeOrigin + performance.now());
    const observer = new MutationObserver(() => {
      if (!done()) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(performance.timeOrigin + performance.now());
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error('waited ${WAIT_MS} ms for ${who} to draw ${count} states standing for ${total}, no layout status; saw ' + JSON.stringify(seen())));
    }, ${WAIT_MS});
    observer.observe(document.body, { subtree: true, childList: true, attributes: true });
  })`);
}

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  const { backend, browser } = bench;
  try {
    const [a, b] = await Promise.all([
      person(backend.url, backend.anonKey, 'big-a'),
      person(backend.url, backend.anonKey, 'big-b'),
    ]);
    const project = await a.client.from('projects').insert({ name: 'Bench big charts' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const added = await a.client
      .from('project_members')
      .insert({ project_id: project.data.id, user_id: b.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw new Error(added.error.message);
    const [pageA, pageB] = await Promise.all([
      signedInPage(browser, bench.url, a.email),
      signedInPage(browser, bench.url, b.email),
    ]);
    if (PROFILE) for (const page of [pageA, pageB]) await page.addInitScript(PROBE_SCRIPT);
    const errors: string[] = [];
    await pageB.addInitScript('Error.stackTraceLimit = 60'); // an error's whole stack, not XState's recursion alone
    pageB.on('pageerror', (e) => errors.push(e.stack ?? e.message));
    pageB.on('console', (m) => {
      if (m.type() === 'error') console.error(`  B console: ${m.text()}`);
    });

    ctx.section('bigchart: a pasted chart appearing at a peer (two Chromium contexts, embedded backend)');
    for (const size of SIZES) {
      const own: number[] = [];
      const peer: number[] = [];
      for (let i = 0; i < (PROFILE ? 1 : (RUNS[size] ?? 3)); i++) {
        const start = importXState({ id: 'start', initial: 'idle', states: { idle: {} } }, { name: 'start' });
        const machine = await a.client
          .from('machines')
          .insert({ project_id: project.data.id, name: `big ${size} ${i}`, definition: start as unknown as Json })
          .select('id')
          .single();
        if (machine.error) throw new Error(machine.error.message);
        const url = `${bench.url}/p/${project.data.id}/m/${machine.data.id}`;
        await Promise.all([pageA.goto(url), pageB.goto(url)]);
        for (const page of [pageA, pageB])
          await page.getByRole('button', { name: 'state idle', exact: true }).waitFor({ timeout: 60_000 });
        const chart = generateChart(size);
        const shown = Object.keys(collapseView(chart, autoCollapsed(chart)).view.states).length;
        // Typing 150 kB into CodeMirror takes Playwright minutes: select all and paste it, as a person would.
        await pageA.locator('.cm-content').click();
        await pageA.keyboard.press('Control+A');
        await pageA.evaluate(`(() => {
          const data = new DataTransfer();
          data.setData('text/plain', ${JSON.stringify(JSON.stringify(exportXState(chart), null, 2))});
          document.querySelector('.cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        })()`);
        const total = Object.keys(chart.states).length;
        const seenA = drawn(pageA, 'A', shown, total);
        const seenB = drawn(pageB, 'B', shown, total);
        const profiles = PROFILE ? await Promise.all([pageA, pageB].map(startProfile)) : [];
        await stampNext(pageA, 'click');
        await pageA.getByRole('button', { name: 'Apply', exact: true }).click();
        const [tA, tB] = await Promise.all([seenA, seenB]).catch(async (error: unknown) => {
          const shots = await Promise.all(
            [pageA, pageB].map(async (page, k) => {
              const file = path.resolve(`bench/.tmp/bigchart-${size}-${'AB'[k]}.png`);
              await page.screenshot({ path: file }).catch(() => undefined);
              return file;
            }),
          );
          const thrown = errors.length > 0 ? `; B threw: ${errors.join(' | ')}` : '';
          throw new Error(`${String(error)}${thrown}; screenshots: ${shots.join(', ')}`);
        });
        const t0 = await stamp(pageA);
        own.push(tA - t0);
        peer.push(tB - t0);
        if (PROFILE) {
          // What B's person sees, at a laptop's size: look at it (bench/.tmp/bigchart-<size>-peer.png).
          await pageB.setViewportSize({ width: 1280, height: 800 });
          await pageB.screenshot({ path: path.resolve(`bench/.tmp/bigchart-${size}-peer.png`) });
          await pageB.setViewportSize({ width: 1400, height: 900 });
        }
        for (const [k, cdp] of profiles.entries()) {
          console.log(`  ${size} states, ${'AB'[k]}: drawn ${ms((k === 0 ? tA : tB) - t0)} after the click`);
          await reportProbe([pageA, pageB][k] as Page, 'AB'[k] as string, t0);
          await reportProfile(cdp, bench.dir);
        }
        await pageA.locator('[data-sync="synced"]').waitFor({ timeout: 120_000 });
      }
      const o = summarize(own);
      const p = summarize(peer);
      ctx.report(
        `${size} states: Apply in A -> all open states drawn in B, p50 (n = ${p.n})`,
        ms(p.p50),
        size === 100 ? '1,500 ms' : '4,000 ms',
      );
      ctx.report('  p95', ms(p.p95));
      ctx.report('  max', ms(p.max));
      ctx.report(`baseline: Apply in A -> drawn in A, p50 (n = ${o.n})`, ms(o.p50));
    }
    ctx.report("errors thrown in B's page (React #185 included)", String(errors.length), '0');
    await pageA.context().close();
    await pageB.context().close();
  } finally {
    await bench.close();
  }
}

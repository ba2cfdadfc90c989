import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import type { Database, Json } from '../../src/adapters/supabase/database.types.ts';
import { importXState } from '../../src/lib/model/import.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { benchApp, type BenchApp } from '../served-app.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * Remote edit, browser to browser (aim: p95 under 50 ms on the embedded backend): two
 * Chromium contexts on the built app, both on one machine's canvas. A renames a state in
 * place; the time runs from A's Enter keydown to the new name entering B's DOM (a
 * MutationObserver in B). Both pages read one clock (`performance.timeOrigin + now()`).
 * Baseline in the same run: A's pointer move to A's cursor moving on B's screen (a
 * broadcast through the same realtime socket, no database).
 */

const SAMPLES = 40;
const WARMUP = 5;
const PASSWORD = 'bench-password-1';

type Client = SupabaseClient<Database>;

export async function person(
  url: string,
  anonKey: string,
  tag: string,
): Promise<{ client: Client; id: string; email: string }> {
  const client = createClient<Database>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
  const email = `bench-${tag}-${Date.now()}@example.test`;
  const { data, error } = await client.auth.signUp({ email, password: PASSWORD });
  if (error || !data.user) throw error ?? new Error('no user');
  return { client, id: data.user.id, email };
}

export async function signedInPage(browser: Browser, appUrl: string, email: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(appUrl);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/**
 * In B: resolves with the clock time at which an element matching `selector` appears (or
 * its `attribute` stops being `previous`). Sent as source text: tsx's name-keeping helper
 * does not exist in the page.
 */
export function watch(
  page: Page,
  selector: string,
  attribute: string | null,
  previous: string | null,
): Promise<number> {
  const args = JSON.stringify({ selector, attribute, previous });
  return page.evaluate<number>(`new Promise((resolve) => {
    const { selector, attribute, previous } = ${args};
    const observer = new MutationObserver(() => {
      const el = document.querySelector(selector);
      if (!el || (attribute !== null && el.getAttribute(attribute) === previous)) return;
      observer.disconnect();
      resolve(performance.timeOrigin + performance.now());
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  })`);
}

/** In A: the clock time of the next event of `type`, recorded in the capture phase. */
export async function stampNext(page: Page, type: string): Promise<void> {
  await page.evaluate(`(() => {
    window.__stamp = null;
    window.addEventListener(${JSON.stringify(type)}, () => { window.__stamp ??= performance.timeOrigin + performance.now(); }, { capture: true, once: true });
  })()`);
}
export const stamp = (page: Page) =>
  page.evaluate(() => (window as unknown as { __stamp: number | null }).__stamp ?? NaN);

/**
 * Two people (A the owner, B an editor) on one project, the machine `definition` in it,
 * and each signed in in their own Chromium context on that machine's page, synced.
 */
export async function twoOnOneMachine(bench: BenchApp, tag: string, definition: MachineDefinition) {
  const { backend, browser } = bench;
  const [a, b] = await Promise.all([
    person(backend.url, backend.anonKey, `${tag}-a`),
    person(backend.url, backend.anonKey, `${tag}-b`),
  ]);
  const project = await a.client
    .from('projects')
    .insert({ name: `Bench ${tag}` })
    .select('id')
    .single();
  if (project.error) throw new Error(project.error.message);
  const added = await a.client
    .from('project_members')
    .insert({ project_id: project.data.id, user_id: b.id, role: 'editor', joined_via: 'added' });
  if (added.error) throw new Error(added.error.message);
  const machine = await a.client
    .from('machines')
    .insert({ project_id: project.data.id, name: definition.name, definition: definition as unknown as Json })
    .select('id')
    .single();
  if (machine.error) throw new Error(machine.error.message);

  const [pageA, pageB] = await Promise.all([
    signedInPage(browser, bench.url, a.email),
    signedInPage(browser, bench.url, b.email),
  ]);
  const url = `${bench.url}/p/${project.data.id}/m/${machine.data.id}`;
  await Promise.all([pageA.goto(url), pageB.goto(url)]);
  for (const page of [pageA, pageB]) await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
  return { a, b, pageA, pageB, machineId: machine.data.id };
}

/**
 * The baseline of the browser-to-browser rows: A's pointer move to A's cursor moving in
 * B's DOM (a presence broadcast through the same realtime socket, no database), in ms.
 */
export async function pointerToCursor(
  pageA: Page,
  pageB: Page,
  userIdA: string,
  warmup: number,
  samples: number,
): Promise<number[]> {
  const stage = await pageA.locator('.canvas-stage').boundingBox();
  if (!stage) throw new Error('no stage');
  const cursor = `.peer-cursor[data-peer="${userIdA}"]`;
  const out: number[] = [];
  for (let i = 0; i < warmup + samples; i++) {
    const before = await pageB.evaluate((sel) => document.querySelector(sel)?.getAttribute('style') ?? null, cursor);
    const seen = watch(pageB, cursor, 'style', before);
    await stampNext(pageA, 'pointermove');
    await pageA.mouse.move(stage.x + 100 + (i % 2) * 80, stage.y + 100 + (i % 3) * 40);
    const t1 = await seen;
    const t0 = await stamp(pageA);
    if (i >= warmup) out.push(t1 - t0);
    // Past the 50 ms throttle window, so each move is the leading edge of its own.
    await pageA.waitForTimeout(60);
  }
  return out;
}

/**
 * A renames the state `first` in place, again and again (`nextName(i)` each round); each
 * sample runs from A's Enter keydown to the new name in B's DOM, in ms.
 */
export async function renameRounds(
  pageA: Page,
  pageB: Page,
  first: string,
  nextName: (i: number) => string,
  warmup: number,
  samples: number,
  /** Double-click by dispatching the event on the state itself (a compound's middle is its children's). */
  direct = false,
): Promise<number[]> {
  const out: number[] = [];
  let name = first;
  for (let i = 0; i < warmup + samples; i++) {
    const next = nextName(i);
    const state = pageA.getByRole('button', { name: `state ${name}`, exact: true });
    await (direct ? state.dispatchEvent('dblclick') : state.dblclick());
    const input = pageA.getByRole('textbox', { name: 'State name' });
    await input.fill(next);
    const seen = watch(pageB, `[aria-label="state ${next}"]`, null, null);
    await stampNext(pageA, 'keydown');
    await input.press('Enter');
    const t1 = await seen;
    const t0 = await stamp(pageA);
    if (i >= warmup) out.push(t1 - t0);
    await pageA.locator('[data-sync="synced"]').waitFor();
    name = next;
  }
  return out;
}

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  try {
    const definition = importXState(
      { id: 'bench', initial: 'r0', states: { r0: { on: { GO: 'other' } }, other: {} } },
      { name: 'bench' },
    );
    const { a, pageA, pageB } = await twoOnOneMachine(bench, 'canvas', definition);
    await pageA.getByRole('button', { name: 'state r0', exact: true }).waitFor();

    // Remote edit: rename r<i> to r<i+1> in A, see it in B.
    const edits = await renameRounds(pageA, pageB, 'r0', (i) => `r${i + 1}`, WARMUP, SAMPLES);

    // Baseline: A's pointer to A's cursor on B's screen.
    const pointer = await pointerToCursor(pageA, pageB, a.id, WARMUP, SAMPLES);

    const e = summarize(edits);
    const p = summarize(pointer);
    ctx.section('canvas: remote edit, browser to browser (two Chromium contexts, embedded backend)');
    ctx.report(`rename in A -> new name in B's DOM, p50 (n = ${e.n})`, ms(e.p50));
    ctx.report('  p95', ms(e.p95), 'under 50 ms');
    ctx.report('  p99', ms(e.p99));
    ctx.report(`baseline: A's pointer -> A's cursor in B's DOM, p50 (n = ${p.n})`, ms(p.p50));
    ctx.report('  p95', ms(p.p95));
    ctx.report('remote edit / pointer broadcast, p50', `${(e.p50 / p.p50).toFixed(1)}x`);
    await pageA.context().close();
    await pageB.context().close();
  } finally {
    await bench.close();
  }
}

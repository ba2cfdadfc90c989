import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { checkpointNow } from '../../src/adapters/supabase/machines.ts';
import { adminDb } from '../setup/clients.ts';
import { showPanel, useBrowserApp } from './harness.ts';
import { insertMachine, signUpPerson, type SignedUp } from './people.ts';

/**
 * The Timeline's virtual list with thousands of entries ("virtualised so that
 * 10,000 entries scroll smoothly"), through the real app: only a window of rows is in the
 * DOM, each placed by its position in the list; scrolling anywhere shows the rows there;
 * at the end it stays at the end as new entries come. Speed is the bench's
 * (`npm run bench -- timeline-scroll`); this checks what the rows say, not how fast.
 */

const ENTRIES = 3000;
const ROW = 28;
const app = useBrowserApp({ timeout: 240_000 });
let a: SignedUp & { page: Page };
let db: pg.Client;
let simulationId: string;
let projectId: string;
let machineId: string;

const list = (page: Page) => page.getByRole('list', { name: 'Timeline entries' });
/** The positions (1-based) of the rows in the DOM, in order. */
const positions = (page: Page) =>
  list(page)
    .locator('li')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('aria-posinset'))).sort((x, y) => x - y));
const scrollTo = (page: Page, top: number) =>
  page.locator('[data-testid="timeline-scroll"]').evaluate((el, t) => {
    el.scrollTop = t;
  }, top);

beforeAll(async () => {
  const pa = await signUpPerson('tlwindow', 'Ada');
  const project = await pa.client.from('projects').insert({ name: 'Window room' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  projectId = project.data.id;
  machineId = await insertMachine(pa.client, projectId, 'Flip', {
    id: 'flip',
    initial: 'left',
    states: { left: { on: { FLIP: 'right' } }, right: { on: { FLOP: 'left' } } },
  });
  await checkpointNow(pa.client, machineId);
  const sim = await pa.client.rpc('start_simulation', { p_machine: machineId });
  if (sim.error) throw new Error(sim.error.message);
  simulationId = (sim.data as { id: string }).id;
  // Arranging: the events seeded straight into the table, a second apart (as the bench does).
  db = await adminDb();
  await db.query(
    `insert into public.simulation_events (simulation_id, seq, project_id, machine_id, sender, kind, type, created_at)
     select s.id, g, s.project_id, s.machine_id, $2, 'event', case when g % 2 = 1 then 'FLIP' else 'FLOP' end,
            now() - make_interval(secs => $3 - g)
       from public.simulations s, generate_series(1, $3::int) g
      where s.id = $1`,
    [simulationId, pa.id, ENTRIES],
  );
  await db.query('update public.simulations set last_seq = $2 where id = $1', [simulationId, ENTRIES]);
  const signed = await app.signIn(pa.email, { viewport: { width: 1400, height: 1000 } });
  a = { ...pa, page: signed.page };
}, 240_000);

afterAll(async () => {
  await db?.end();
});

describe('the timeline’s virtual list', () => {
  it('keeps a window of rows in the DOM, shows the rows wherever it is scrolled, and sticks to the end', async () => {
    await a.page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
    await showPanel(a.page, 'Timeline');
    await expect
      .poll(async () => Number(await list(a.page).locator('li').first().getAttribute('aria-setsize')), {
        timeout: 60_000,
      })
      .toBeGreaterThan(ENTRIES);
    const count = Number(await list(a.page).locator('li').first().getAttribute('aria-setsize'));
    // The window: the rows that fit the list's height (it fills the side panel), and a few more.
    const fit = await a.page
      .getByTestId('timeline-scroll')
      .evaluate((el, row) => Math.ceil(el.clientHeight / row), ROW);
    const most = fit + 20;

    // Opened at the end: the last rows, and only a window of them.
    await expect.poll(async () => (await positions(a.page)).at(-1), { timeout: 20_000 }).toBe(count);
    expect((await positions(a.page)).length).toBeLessThan(most);

    // The middle: the rows there, contiguous, around the row at the top.
    const middle = Math.floor(count / 2);
    await scrollTo(a.page, middle * ROW);
    await expect.poll(async () => (await positions(a.page)).includes(middle + 1), { timeout: 20_000 }).toBe(true);
    const shown = await positions(a.page);
    expect(shown.length).toBeLessThan(most);
    expect(shown.every((p, i) => i === 0 || p === shown[i - 1]! + 1)).toBe(true);
    expect(
      await list(a.page)
        .locator(`li[aria-posinset="${middle + 1}"]`)
        .textContent(),
    ).toMatch(/FLIP|FLOP/);

    // The top, then back to the end: a new event arrives and the list stays at the end.
    await scrollTo(a.page, 0);
    await expect.poll(async () => (await positions(a.page))[0], { timeout: 20_000 }).toBe(1);
    await scrollTo(a.page, count * ROW);
    await expect.poll(async () => (await positions(a.page)).at(-1), { timeout: 20_000 }).toBe(count);
    const sent = await a.client.rpc('send_simulation_event', {
      p_simulation: simulationId,
      p_kind: 'event',
      p_type: 'FLIP',
    });
    if (sent.error) throw new Error(sent.error.message);
    await expect.poll(async () => (await positions(a.page)).at(-1), { timeout: 20_000 }).toBe(count + 1);
  }, 240_000);
});

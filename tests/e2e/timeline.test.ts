import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox as stateButton } from './machine-page.ts';
import { createProject, insertMachine, signUpAccount, type Client } from './people.ts';

/**
 * The timeline in two browsers, through the real app and backend: A's edits
 * and A's simulation appear at B as list items of the region Timeline, in words with
 * A's name; the filters by kind and person; time travel to an old version (read-only,
 * the edit's change named) and Restore this version, which everyone sees and Undo takes
 * back.
 */

const app = useBrowserApp({ timeout: 240_000 });
let a: { id: string; client: Client; page: Page };
let b: { id: string; client: Client; page: Page };
let projectId: string;
let machineId: string;

const DOOR = {
  id: 'door',
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
};

const person = (tag: string, name: string) => signUpAccount(`tl-${tag}`, name);

const timeline = (page: Page): Locator => page.getByRole('region', { name: 'Timeline' });
const entries = (page: Page): Locator => timeline(page).getByRole('listitem');
const entry = (page: Page, text: string | RegExp): Locator => entries(page).filter({ hasText: text });

async function open(page: Page) {
  await openMachinePage(app, page, projectId, machineId, 'closed');
  await showPanel(page, 'Timeline');
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([person('ada', 'Ada'), person('bob', 'Bob')]);
  projectId = await createProject(pa.client, 'Timeline room', [{ id: pb.id, role: 'editor' }]);
  machineId = await insertMachine(pa.client, projectId, 'Door', DOOR);
  const viewport = { viewport: { width: 1400, height: 1100 } };
  const [sa, sb] = await Promise.all([app.signIn(pa.email, viewport), app.signIn(pb.email, viewport)]);
  a = { ...pa, page: sa.page };
  b = { ...pb, page: sb.page };
  for (const page of [a.page, b.page]) page.setDefaultTimeout(20_000);
  await Promise.all([open(a.page), open(b.page)]);
}, 240_000);

describe('the timeline, two browsers', { timeout: 90_000 }, () => {
  it("shows B A's edits in words, A's simulation and its events, and who joined", async () => {
    await entry(b.page, 'Ada replaced the whole machine').waitFor();
    await entry(b.page, 'Ada joined').waitFor();

    await stateButton(a.page, 'closed').dblclick();
    const input = a.page.getByRole('textbox', { name: 'State name' });
    await input.fill('shut');
    await input.press('Enter');
    await entry(b.page, 'Ada renamed closed → shut').waitFor();

    await showPanel(a.page, 'Simulation');
    const sim = a.page.getByRole('region', { name: 'Simulation' });
    await sim.getByRole('button', { name: 'Simulate', exact: true }).click();
    await entry(b.page, /Ada started a simulation/).waitFor();
    await sim.getByRole('button', { name: 'OPEN', exact: true }).click();
    await entry(b.page, 'Ada sent OPEN').waitFor();
    await showPanel(a.page, 'Timeline');
    // The same entries, in the same order, at A.
    await entry(a.page, 'Ada sent OPEN').waitFor();
    const texts = async (page: Page) =>
      (await entries(page).allInnerTexts())
        .map((t) => t.replace(/\s+\d{1,2}:\d{2}:\d{2}.*$/, ''))
        .filter((t) => !/joined/.test(t));
    expect(await texts(b.page)).toEqual(await texts(a.page));
    expect((await texts(b.page)).slice(-4)).toEqual([
      'Ada replaced the whole machine',
      'Ada renamed closed → shut',
      expect.stringMatching(/^Ada started a simulation/),
      'Ada sent OPEN',
    ]);
  });

  it('filters by kind and by person', async () => {
    // The boxes are the timeline actor's state: a click asks, the list answers.
    const kind = (name: string) => timeline(b.page).getByRole('checkbox', { name });
    await kind('Edits').click();
    await expect.poll(() => entries(b.page).count()).toBe(2);
    expect(await entries(b.page).evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual([
      'edit',
      'edit',
    ]);
    await kind('Events').click();
    await expect.poll(() => entries(b.page).count()).toBe(3);
    // Each box waits for the list's answer before the next click (a filter is sent whole).
    const toggle = async (name: string, on: boolean) => {
      await kind(name).click();
      await expect.poll(() => kind(name).isChecked()).toBe(on);
    };
    await toggle('Edits', false);
    await toggle('Events', false);
    await toggle('Joins', true);
    // Joins only, then Ada only: B's list holds Ada's join (one's own is not listed).
    await expect
      .poll(async () => [
        ...new Set(await entries(b.page).evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))),
      ])
      .toEqual(['joined']);
    await timeline(b.page).getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Ada' });
    await expect.poll(() => entries(b.page).allInnerTexts()).toEqual([expect.stringMatching(/^Ada joined/)]);
    await timeline(b.page).getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Everyone' });
    await kind('Joins').click();
    await entry(b.page, 'Ada sent OPEN').waitFor();
    expect(await entries(b.page).count()).toBeGreaterThanOrEqual(5);
  });

  it('time travels to an old version, read-only with the change named, and restores it for everyone; Undo takes it back', async () => {
    await entry(a.page, 'Ada renamed closed → shut').getByRole('button', { name: 'Ada renamed closed → shut' }).click();
    const version = timeline(a.page).getByRole('region', { name: 'Version 2' });
    await version.getByText('Read-only').waitFor();
    await version.getByText('Changed: shut').waitFor();
    await version.locator('[data-state-path="shut"]').waitFor();
    // The page's own diagram still shows the machine as it is now.
    await stateButton(a.page, 'shut').first().waitFor();

    await entry(a.page, 'Ada replaced the whole machine')
      .getByRole('button', { name: 'Ada replaced the whole machine' })
      .click();
    const first = timeline(a.page).getByRole('region', { name: 'Version 1' });
    await first.locator('[data-state-path="closed"]').waitFor();
    await first.getByRole('button', { name: 'Restore this version' }).click();
    await expect.poll(() => first.count()).toBe(0);
    for (const page of [a.page, b.page])
      await page.locator('.diagram-svg [data-state-path="closed"]').first().waitFor();
    // The restore is an ordinary edit: in the timeline, and undoable.
    await entry(b.page, 'Ada renamed shut → closed').waitFor();
    await a.page.getByRole('button', { name: 'Undo' }).click();
    await b.page.locator('.diagram-svg [data-state-path="shut"]').first().waitFor();
    await entry(b.page, 'Ada renamed closed → shut').nth(1).waitFor();
  });
});

import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox, synced } from './machine-page.ts';
import { createProject, insertDefinition, insertMachine, signUpAccount, type Client } from './people.ts';
import { loadExample } from '../../src/features/canvas/examples.ts';

/**
 * Named versions and the visual diff in two browsers, through the real app and backend
 * (the contract: a button Save version asks for a name; a region Versions lists them,
 * each with Open, Compare and Restore; a version opened or compared is drawn on the main
 * canvas, read-only, under a banner with Back to now, and in a diff its elements carry
 * data-diff while a list named Changes in the panel says each in words). A saves v1,
 * edits, saves v2; B sees both appear live; A compares v1 with now (B's canvas stays
 * live) and restores v1, which Undo takes back; a 21-state chart compared at 1280x800 is
 * drawn inside the canvas at a readable size after Fit.
 */

const app = useBrowserApp({ timeout: 240_000 });
let a: { id: string; client: Client; page: Page };
let b: { id: string; client: Client; page: Page };
let projectId: string;
let machineId: string;
let roomId: string;

const DOOR = {
  id: 'door',
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
};

/** The 21-state demo chart (the room's machine). */
const ROOM_CHART = loadExample('room');

const versions = (page: Page): Locator => page.getByRole('region', { name: 'Versions' });
const version = (page: Page, name: string): Locator => versions(page).getByRole('article', { name, exact: true });
/** The page's own diagram (not a version drawn in the panel). */
const onCanvas = (page: Page, key: string): Locator =>
  page.locator('.canvas-page').getByRole('button', { name: `state ${key}`, exact: true });
/** The main canvas's stage, where the live chart, or a version or diff shown instead, is drawn. */
const stage = (page: Page): Locator => page.getByRole('region', { name: 'Diagram', exact: true });
/** The banner atop the canvas while a version or diff is shown. */
const banner = (page: Page): Locator =>
  page.locator('.canvas-page').getByRole('status', { name: 'Review on the canvas' });

async function saveVersion(page: Page, name: string) {
  await versions(page).getByRole('button', { name: 'Save version' }).click();
  const form = versions(page).getByRole('form', { name: 'Name this version' });
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await version(page, name).waitFor();
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([signUpAccount('vs-ada', 'Ada'), signUpAccount('vs-bob', 'Bob')]);
  projectId = await createProject(pa.client, 'Versions room', [{ id: pb.id, role: 'editor' }]);
  machineId = await insertMachine(pa.client, projectId, 'Door', DOOR);
  if (!ROOM_CHART) throw new Error('the room example is missing');
  roomId = await insertDefinition(pa.client, projectId, 'room', ROOM_CHART);
  const viewport = { viewport: { width: 1400, height: 1100 } };
  const [sa, sb] = await Promise.all([app.signIn(pa.email, viewport), app.signIn(pb.email, viewport)]);
  a = { ...pa, page: sa.page };
  b = { ...pb, page: sb.page };
  for (const page of [a.page, b.page]) page.setDefaultTimeout(20_000);
  await Promise.all(
    [a.page, b.page].map(async (page) => {
      await openMachinePage(app, page, projectId, machineId, 'closed');
      await showPanel(page, 'Versions');
    }),
  );
}, 240_000);

describe('named versions and the visual diff, two browsers', { timeout: 90_000 }, () => {
  it('asks for a name, refuses a blank one, and shows each new version to the other browser live', async () => {
    await synced(a.page);
    await versions(a.page).getByRole('button', { name: 'Save version' }).click();
    const form = versions(a.page).getByRole('form', { name: 'Name this version' });
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await versions(a.page).getByRole('alert').filter({ hasText: 'A version needs a name.' }).waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();

    await saveVersion(a.page, 'v1');
    await version(b.page, 'v1').getByText('Ada').waitFor();

    await stateBox(a.page, 'closed').first().dblclick();
    const input = a.page.getByRole('textbox', { name: 'State name' });
    await input.fill('shut');
    await input.press('Enter');
    await synced(a.page);
    await saveVersion(a.page, 'v2');
    await version(b.page, 'v2').waitFor();
    // The same name twice is refused, in words.
    await versions(a.page).getByRole('button', { name: 'Save version' }).click();
    await versions(a.page).getByRole('textbox', { name: 'Name' }).fill('v2');
    await versions(a.page).getByRole('button', { name: 'Save', exact: true }).click();
    await versions(a.page).getByRole('alert').filter({ hasText: 'already has a version named "v2"' }).waitFor();
    await versions(a.page).getByRole('button', { name: 'Cancel' }).click();
    expect(await versions(b.page).getByRole('article').count()).toBe(2);
    // Versions are marks on the timeline too, at the edit each names.
    await showPanel(b.page, 'Timeline');
    const timeline = b.page.getByRole('region', { name: 'Timeline' });
    await timeline
      .getByRole('listitem')
      .filter({ hasText: 'Ada renamed closed → shut' })
      .locator('[data-version-mark="v2"]')
      .waitFor();
    await timeline
      .getByRole('listitem')
      .filter({ hasText: 'Ada replaced the whole machine' })
      .locator('[data-version-mark="v1"]')
      .waitFor();
    await showPanel(b.page, 'Versions');
  });

  it('compares v1 with now: the diagram marks what changed, the Changes list says it, a change picked is selected', async () => {
    await version(a.page, 'v1').getByRole('button', { name: 'Compare' }).click();
    const diff = versions(a.page).getByRole('region', { name: 'Diff v1 → now' });
    // The diff is drawn on the main canvas, under its banner; the panel keeps the words.
    await stage(a.page).locator('[data-state-path="shut"][data-diff="changed"]').waitFor();
    await banner(a.page).getByText('Comparing v1 → now').waitFor();
    await banner(a.page).getByText('Read-only', { exact: false }).waitFor();
    expect(await versions(a.page).locator('svg [data-state-path]').count()).toBe(0);
    const changes = diff.getByRole('list', { name: 'Changes' });
    await expect
      .poll(() => changes.getByRole('listitem').allInnerTexts())
      .toEqual([expect.stringMatching(/^~\s*shut renamed from closed$/)]);
    await changes.getByRole('button', { name: /shut renamed from closed/ }).click();
    await stage(a.page).locator('.st.is-selected[data-state-path="shut"]').waitFor();
    // A per-person view: B's canvas stays live, with no marks and no banner.
    await onCanvas(b.page, 'shut').waitFor();
    expect(await stage(b.page).locator('[data-diff]').count()).toBe(0);
    expect(await banner(b.page).count()).toBe(0);
    // Read-only: no editing tools, and a double-click or Delete edits nothing.
    expect(await a.page.getByRole('button', { name: 'Add child' }).count()).toBe(0);
    await onCanvas(a.page, 'shut').dblclick();
    expect(await a.page.getByRole('textbox', { name: 'State name' }).count()).toBe(0);
    await a.page.keyboard.press('Delete');
    await onCanvas(a.page, 'shut').waitFor();

    // Open shows v1 itself, read-only, without marks, on the canvas.
    await version(a.page, 'v1').getByRole('button', { name: 'Open' }).click();
    await versions(a.page).getByRole('region', { name: 'Version v1' }).waitFor();
    await banner(a.page).getByText('Viewing v1').waitFor();
    await stage(a.page).locator('[data-state-path="closed"]').waitFor();
    expect(await stage(a.page).locator('[data-diff]').count()).toBe(0);
    // Back to now (from the banner) draws the live chart again, for A; nothing was edited.
    await banner(a.page).getByRole('button', { name: 'Back to now' }).click();
    await onCanvas(a.page, 'shut').waitFor();
    expect(await banner(a.page).count()).toBe(0);
    await synced(a.page);
    expect(await versions(b.page).getByRole('article').count()).toBe(2);
    await onCanvas(b.page, 'shut').waitFor();
  });

  it('compares two versions with each other', async () => {
    await version(a.page, 'v2').getByRole('button', { name: 'Compare' }).click();
    await versions(a.page)
      .getByRole('combobox', { name: /Compare v2 with/ })
      .selectOption({ label: 'v1' });
    const diff = versions(a.page).getByRole('region', { name: 'Diff v2 → v1' });
    await stage(a.page).locator('[data-state-path="closed"][data-diff="changed"]').waitFor();
    await banner(a.page).getByText('Comparing v2 → v1').waitFor();
    await diff.getByRole('list', { name: 'Changes' }).getByText('renamed from').waitFor();
    await diff.getByRole('button', { name: 'Back to now' }).click();
    await onCanvas(a.page, 'shut').waitFor();
  });

  it('restores v1 for everyone as an ordinary edit, and Undo takes it back', async () => {
    await version(a.page, 'v1').getByRole('button', { name: 'Restore', exact: true }).click();
    for (const page of [a.page, b.page]) await onCanvas(page, 'closed').waitFor();
    await a.page.getByRole('button', { name: 'Undo' }).click();
    for (const page of [a.page, b.page]) await onCanvas(page, 'shut').waitFor();
  });

  it('draws a 21-state chart compared with now inside the main canvas, readable after Fit at 1280x800', async () => {
    const page = a.page;
    await openMachinePage(app, page, projectId, roomId, 'removed');
    await showPanel(page, 'Versions');
    await synced(page);
    await saveVersion(page, 'r1');
    await stateBox(page, 'removed').dblclick();
    const input = page.getByRole('textbox', { name: 'State name' });
    await input.fill('gone');
    await input.press('Enter');
    await synced(page);
    await version(page, 'r1').getByRole('button', { name: 'Compare' }).click();
    await stage(page).locator('[data-state-path="gone"][data-diff="changed"]').waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Zoom to fit' }).click();
    // Shown as the live chart is at Fit (the compounds without changes collapsed to a box
    // that counts what they hold): every state drawn lies inside the canvas's stage, and
    // the smallest is at least 24 px tall on screen.
    const topLevel = Object.values(ROOM_CHART?.states ?? {}).filter((st) => st.parent === ROOM_CHART?.root);
    const box = await stage(page).boundingBox();
    if (!box) throw new Error('the canvas has no box');
    const leafBoxes = () =>
      stage(page)
        .locator('.st-leaf[data-state-path] > .st-box')
        .evaluateAll((els) =>
          els.map((e) => {
            const r = e.getBoundingClientRect();
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height };
          }),
        );
    await expect
      .poll(async () => {
        const boxes = await leafBoxes();
        const inside = boxes.filter(
          (r) =>
            r.left >= box.x - 1 &&
            r.right <= box.x + box.width + 1 &&
            r.top >= box.y - 1 &&
            r.bottom <= box.y + box.height + 1,
        );
        return { drawn: boxes.length, inside: inside.length };
      })
      .toEqual({ drawn: topLevel.length, inside: topLevel.length });
    await stage(page).locator('[data-state-path="gone"][data-diff="changed"]').waitFor();
    const heights = (await leafBoxes()).map((r) => r.height);
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(24);
    await banner(page).getByRole('button', { name: 'Back to now' }).click();
    await stateBox(page, 'gone').waitFor();
  });
});

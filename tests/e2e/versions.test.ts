import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox, synced } from './machine-page.ts';
import { createProject, insertMachine, signUpAccount, type Client } from './people.ts';

/**
 * Named versions and the visual diff in two browsers, through the real app and backend
 * (the contract: a button Save version asks for a name; a region Versions lists them,
 * each with Open, Compare and Restore; in a diff, diagram elements carry data-diff and a
 * list named Changes says each in words). A saves v1, edits, saves v2; B sees both appear
 * live; A compares v1 with now and restores v1, which Undo takes back.
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

const versions = (page: Page): Locator => page.getByRole('region', { name: 'Versions' });
const version = (page: Page, name: string): Locator => versions(page).getByRole('article', { name, exact: true });
/** The page's own diagram (not a version drawn in the panel). */
const onCanvas = (page: Page, key: string): Locator =>
  page.locator('.canvas-page').getByRole('button', { name: `state ${key}`, exact: true });

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
    await diff.locator('[data-state-path="shut"][data-diff="changed"]').waitFor();
    const changes = diff.getByRole('list', { name: 'Changes' });
    await expect
      .poll(() => changes.getByRole('listitem').allInnerTexts())
      .toEqual([expect.stringMatching(/^~\s*shut renamed from closed$/)]);
    await changes.getByRole('button', { name: /shut renamed from closed/ }).click();
    await diff.locator('.st.is-selected[data-state-path="shut"]').waitFor();

    // Open shows v1 itself, read-only, without marks.
    await version(a.page, 'v1').getByRole('button', { name: 'Open' }).click();
    const opened = versions(a.page).getByRole('region', { name: 'Version v1' });
    await opened.locator('[data-state-path="closed"]').waitFor();
    expect(await opened.locator('[data-diff]').count()).toBe(0);
  });

  it('compares two versions with each other', async () => {
    await version(a.page, 'v2').getByRole('button', { name: 'Compare' }).click();
    await versions(a.page)
      .getByRole('combobox', { name: /Compare v2 with/ })
      .selectOption({ label: 'v1' });
    const diff = versions(a.page).getByRole('region', { name: 'Diff v2 → v1' });
    await diff.locator('[data-state-path="closed"][data-diff="changed"]').waitFor();
    await diff.getByRole('list', { name: 'Changes' }).getByText('renamed from').waitFor();
    await diff.getByRole('button', { name: 'Back to now' }).click();
  });

  it('restores v1 for everyone as an ordinary edit, and Undo takes it back', async () => {
    await version(a.page, 'v1').getByRole('button', { name: 'Restore', exact: true }).click();
    for (const page of [a.page, b.page]) await onCanvas(page, 'closed').waitFor();
    await a.page.getByRole('button', { name: 'Undo' }).click();
    for (const page of [a.page, b.page]) await onCanvas(page, 'shut').waitFor();
  });
});

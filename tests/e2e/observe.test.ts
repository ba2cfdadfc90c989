import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from './harness.ts';
import { insertMachine, signUpPerson, type SignedUp } from './people.ts';

/**
 * Observe controls, two browsers through the real app and backend: Bo turns off being
 * followed and Ada cannot follow him; Ada spotlights, Bo declines, is asked again when
 * Ada starts a new spotlight, follows, and stops following when it ends; Ada refusing to
 * be followed ends Bo's following at once. Read off the pages: the people list's buttons,
 * the region Spotlight and the "Following" note.
 */

const app = useBrowserApp({ timeout: 240_000 });
let ada: SignedUp & { page: Page };
let bo: SignedUp & { page: Page };
let url: string;

const DOOR = { id: 'door', initial: 'closed', states: { closed: { on: { OPEN: 'open' } }, open: {} } };

const people = (page: Page) => page.getByRole('list', { name: 'On this machine' });
const following = (page: Page, name: string) => page.getByRole('status').filter({ hasText: `Following ${name}.` });
const ask = (page: Page) => page.getByRole('region', { name: 'Spotlight' });

/** Opens the Presenting popover (if closed) and hands it back. */
async function presenting(page: Page) {
  const panel = page.getByRole('region', { name: 'Presenting' });
  if (!(await panel.isVisible())) await page.locator('.machine-present-toggle').click();
  await panel.waitFor();
  return panel;
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([signUpPerson('observe', 'Ada'), signUpPerson('observe', 'Bo')]);
  const project = await pa.client.from('projects').insert({ name: 'Observe room' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  const added = await pa.client
    .from('project_members')
    .insert({ project_id: project.data.id, user_id: pb.id, role: 'editor', joined_via: 'added' });
  if (added.error) throw new Error(added.error.message);
  const machineId = await insertMachine(pa.client, project.data.id, 'Door', DOOR);
  url = `${app.url}/p/${project.data.id}/m/${machineId}`;
  const viewport = { viewport: { width: 1400, height: 900 } };
  const [sa, sb] = await Promise.all([app.signIn(pa.email, viewport), app.signIn(pb.email, viewport)]);
  ada = { ...pa, page: sa.page };
  bo = { ...pb, page: sb.page };
  for (const p of [ada, bo]) {
    await p.page.goto(url);
    await p.page.getByRole('button', { name: 'state closed', exact: true }).waitFor({ timeout: 60_000 });
  }
  await people(ada.page).getByRole('button', { name: 'Follow Bo' }).waitFor();
  await people(bo.page).getByRole('button', { name: 'Follow Ada' }).waitFor();
}, 240_000);

describe('observe controls', () => {
  it('someone who does not let others follow cannot be followed, and turning it off ends following', async () => {
    await (await presenting(bo.page)).getByRole('checkbox', { name: 'Others can follow my view' }).uncheck();
    const refused = people(ada.page).getByRole('button', { name: 'Bo is not sharing their view' });
    await refused.waitFor();
    expect(await refused.isDisabled()).toBe(true);
    await (await presenting(bo.page)).getByRole('checkbox', { name: 'Others can follow my view' }).check();
    await people(ada.page).getByRole('button', { name: 'Follow Bo' }).waitFor();

    // Bo follows Ada; Ada refuses to be followed: Bo's following ends at once.
    await people(bo.page).getByRole('button', { name: 'Follow Ada' }).click();
    await following(bo.page, 'Ada').waitFor();
    await (await presenting(ada.page)).getByRole('checkbox', { name: 'Others can follow my view' }).uncheck();
    await following(bo.page, 'Ada').waitFor({ state: 'detached' });
    await people(bo.page).getByRole('button', { name: 'Ada is not sharing their view' }).waitFor();
  });

  it('a spotlight asks once; declined, it is asked again only for a new one; followed, it ends with the spotlight', async () => {
    const panel = await presenting(ada.page);
    // Spotlighting lets others follow again.
    await panel.getByRole('button', { name: 'Spotlight me' }).click();
    await panel.getByRole('checkbox', { name: 'Others can follow my view', checked: true }).waitFor();
    await ask(bo.page).getByText('Ada asks everyone to follow their view.').waitFor();
    await ask(bo.page).getByRole('button', { name: 'Not now' }).click();
    await ask(bo.page).waitFor({ state: 'detached' });
    await people(bo.page).getByRole('button', { name: 'Follow Ada (presenting)' }).waitFor();

    // A new spotlight asks again; Bo follows.
    await panel.getByRole('button', { name: 'Stop spotlight' }).click();
    await people(bo.page).getByRole('button', { name: 'Follow Ada', exact: true }).waitFor();
    await panel.getByRole('button', { name: 'Spotlight me' }).click();
    await ask(bo.page).getByRole('button', { name: 'Follow', exact: true }).click();
    await following(bo.page, 'Ada').waitFor();
    await ask(bo.page).waitFor({ state: 'detached' });

    // The spotlight ends: Bo stops following.
    await panel.getByRole('button', { name: 'Stop spotlight' }).click();
    await following(bo.page, 'Ada').waitFor({ state: 'detached' });
    await people(bo.page).getByRole('button', { name: 'Follow Ada', exact: true }).waitFor();
  });
});

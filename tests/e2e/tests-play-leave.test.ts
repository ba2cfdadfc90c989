import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { insertMachine, signUpPerson } from './people.ts';

/**
 * A path played for the room ends for everyone when its player leaves: A plays
 * a generated path, B sees it played on B's diagram and in B's Tests panel; A's browser
 * context closes (the tab and its connection go), and B's panel and diagram stop showing
 * the play, through the player's presence leave on `test-play:<machine>`.
 */

const app = useBrowserApp({ timeout: 240_000 });

const LAMP = { id: 'lamp', initial: 'off', states: { off: { on: { TOGGLE: 'on' } }, on: { on: { TOGGLE: 'off' } } } };

const panel = (page: Page) => page.getByRole('region', { name: 'Tests' });
const played = (page: Page) =>
  page.locator('[data-played="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-state-path')).sort());

describe('a played path when its player leaves', () => {
  it("ends for the room when the player's tab closes", async () => {
    const [ada, bo] = await Promise.all([signUpPerson('play-leave', 'Ada'), signUpPerson('play-leave', 'Bo')]);
    const project = await ada.client.from('projects').insert({ name: 'Play leave' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const projectId = project.data.id;
    const added = await ada.client
      .from('project_members')
      .insert({ project_id: projectId, user_id: bo.id, role: 'viewer', joined_via: 'added' });
    if (added.error) throw new Error(added.error.message);
    const machineId = await insertMachine(ada.client, projectId, 'Lamp', LAMP);

    const viewport = { viewport: { width: 1400, height: 1000 } };
    const [sa, sb] = await Promise.all([app.signIn(ada.email, viewport), app.signIn(bo.email, viewport)]);
    for (const page of [sa.page, sb.page]) {
      await page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
      await page.getByRole('button', { name: 'state off', exact: true }).waitFor({ timeout: 60_000 });
      await showPanel(page, 'Tests');
    }

    // A plays the path to `on` and steps it once; B sees it, with who plays it.
    await panel(sa.page).getByRole('button', { name: 'Generate paths', exact: true }).click();
    const toOn = panel(sa.page)
      .getByRole('list', { name: 'Generated paths' })
      .getByRole('listitem')
      .filter({ hasText: 'TOGGLE → on' });
    await toOn.getByRole('button', { name: 'Play', exact: true }).click();
    await panel(sa.page)
      .getByRole('button', { name: /Step forward/ })
      .click();
    const watching = panel(sb.page).getByRole('group', { name: 'Played for the room' });
    await watching.waitFor();
    expect(await watching.getAttribute('data-player')).toBe(ada.id);
    await sb.page.locator('[data-state-path="on"][data-played="true"]').waitFor();
    expect(await played(sb.page)).toEqual(['on']);

    // A's tab and connection go without a stop: B's panel and diagram stop showing the play.
    await sa.context.close();
    await watching.waitFor({ state: 'detached', timeout: 30_000 });
    await expect.poll(() => played(sb.page), { timeout: 10_000 }).toEqual([]);
    expect(await panel(sb.page).textContent()).not.toContain('is playing');
  }, 240_000);
});

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createMembersAdapter } from '../../src/adapters/supabase/members.ts';
import { importXState } from '../../src/lib/model/import.ts';
import { useBrowserApp } from './harness.ts';
import { insertDefinition, inviteToken, signUpInBrowser } from './people.ts';

/**
 * Two people in one room:
 * - both have the same profile colour, yet each is shown in a different one,
 *   in both browsers (avatars in the room and on the machine);
 * - an owner makes the other a viewer while they are renaming a state, then the
 *   machine; each time the open field closes and says the name was not saved.
 */

const app = useBrowserApp({ timeout: 180_000 });
const person = (tag: string) => signUpInBrowser(app, tag);

/** The ring colour of an avatar (its box-shadow's last colour). */
const ring = (page: Page, label: string) =>
  page
    .getByRole('img', { name: label, exact: true })
    .first()
    .evaluate(
      (el) =>
        getComputedStyle(el)
          .boxShadow.match(/rgba?\([^)]*\)/g)
          ?.at(-1) ?? '',
    );

describe('people in a machine', () => {
  it('distinct colours for two people with the same profile colour; a rename cut short by a demotion says so', async () => {
    const a = await person('people-a');
    const b = await person('people-b');
    // Same colour for both, as the hash into ten often gives.
    for (const p of [a, b]) {
      const { error } = await p.client.from('profiles').update({ color: '#e5484d' }).eq('id', p.id);
      if (error) throw error;
    }
    const { data: project, error } = await a.client.from('projects').insert({ name: 'Colours' }).select('id').single();
    if (error) throw error;
    const accepted = await createMembersAdapter(b.client).acceptInvite(
      await inviteToken(a.client, project.id, 'editor'),
    );
    if (!accepted.ok) throw new Error(accepted.error.message);
    const definition = importXState(
      {
        id: 'door',
        initial: 'closed',
        states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
      },
      { name: 'door' },
    );
    const machineId = await insertDefinition(a.client, project.id, 'Door', definition);

    await Promise.all([a, b].map((p) => p.page.goto(`${app.url}/p/${project.id}`)));
    for (const p of [a, b]) {
      await p.page.getByRole('img', { name: `${a.name} (online)` }).waitFor();
      await p.page.getByRole('img', { name: `${b.name} (online)` }).waitFor();
    }
    for (const p of [a, b]) {
      const colorA = await ring(p.page, `${a.name} (online)`);
      const colorB = await ring(p.page, `${b.name} (online)`);
      expect(colorA).not.toBe('');
      expect(colorA, 'two people share a colour').not.toBe(colorB);
    }
    const aColor = await ring(a.page, `${a.name} (online)`);
    expect(await ring(b.page, `${a.name} (online)`)).toBe(aColor);

    // B renames a state on the machine; A makes B a viewer meanwhile.
    const url = `${app.url}/p/${project.id}/m/${machineId}`;
    await b.page.goto(url);
    await b.page.getByRole('button', { name: 'state closed', exact: true }).dblclick();
    await b.page.getByRole('textbox', { name: 'State name' }).fill('shut');
    const members = createMembersAdapter(a.client);
    await members.changeRole(project.id, b.id, 'viewer');
    await b.page
      .getByRole('alert')
      .filter({ hasText: 'Your role changed to viewer, so the state name you were typing was not saved.' })
      .waitFor();
    await expect(b.page.getByRole('textbox', { name: 'State name' }).count()).resolves.toBe(0);
    await b.page.getByRole('button', { name: 'OK' }).click();

    // And again with the machine's name.
    await members.changeRole(project.id, b.id, 'editor');
    await b.page.getByRole('button', { name: 'Machine menu' }).click();
    await b.page.getByRole('button', { name: 'Rename machine' }).click();
    await b.page.getByLabel('Machine name').fill('Front door');
    await members.changeRole(project.id, b.id, 'viewer');
    await b.page
      .getByRole('alert')
      .filter({ hasText: 'Your role changed to viewer, so the machine name you were typing was not saved.' })
      .waitFor();
    await expect(b.page.getByLabel('Machine name').count()).resolves.toBe(0);
    await expect(b.page.getByRole('heading', { level: 1, name: 'Door' }).count()).resolves.toBe(1);
  }, 120_000);
});

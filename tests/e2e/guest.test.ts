import { describe, expect, it } from 'vitest';
import { signedInClient } from '../setup/clients.ts';
import { useBrowserApp } from './harness.ts';

/**
 * Guest entry: a public project's /s/ link opens as a guest, read-only, and a
 * reload keeps the guest in the room. A bad share link says so and offers a way out.
 */

const app = useBrowserApp();

describe('guest entry by share link', () => {
  it('opens a public project read-only as a guest, and stays after a reload', async () => {
    const owner = await signedInClient('share-owner');
    const created = await owner.client
      .from('projects')
      .insert({ name: 'Open skies', visibility: 'public' })
      .select('id')
      .single<{ id: string }>();
    if (created.error) throw created.error;
    const { data, error } = await owner.client
      .rpc('owned_share_tokens', { p_project: created.data.id })
      .single<{ share_token: string }>();
    if (error) throw error;

    const page = await app.newPage();
    await page.goto(`${app.url}/s/${data.share_token}`);
    await page.getByRole('note').getByText('Continue as a guest').waitFor();
    await page.getByRole('button', { name: 'Continue as guest' }).click();
    await page.waitForURL(`**/p/${created.data.id}`);
    await page.getByRole('heading', { name: 'Open skies' }).waitFor();
    await page.getByText('Read-only: you are viewing this project.').waitFor();
    expect(await page.getByRole('button', { name: 'Rename' }).count()).toBe(0);

    await page.reload();
    await page.getByRole('heading', { name: 'Open skies' }).waitFor();
    expect(await page.getByRole('banner').getByText('Guest', { exact: true }).isVisible()).toBe(true);

    // The guest's list holds the project they opened; guests cannot create projects.
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('list', { name: 'Projects' }).getByRole('link', { name: 'Open skies' }).waitFor();
    expect(await page.getByRole('button', { name: 'New project' }).count()).toBe(0);
  });

  it('says a bad share link does not work', async () => {
    const page = await app.newPage();
    await page.goto(`${app.url}/s/0123456789abcdef0123456789abcdef`);
    await page.getByRole('button', { name: 'Continue as guest' }).click();
    await page.getByRole('heading', { name: 'This share link doesn’t work' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Ask the owner for a new link');
  });
});

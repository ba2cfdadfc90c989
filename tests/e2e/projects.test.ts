import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminDb } from '../setup/clients.ts';
import { useBrowserApp } from './harness.ts';

/**
 * The projects list in two browsers: A creates a project through
 * the UI; B, added through an invite, sees it appear, get renamed and disappear without
 * reloading; a reload keeps A signed in. Controls are found by role and name.
 */

const app = useBrowserApp();
const signUp = (path = '/') => app.signUp({ tag: 'list', path });

const projectLink = (page: Page, name: string) =>
  page.getByRole('list', { name: 'Projects' }).getByRole('link', { name, exact: true });

async function inviteFor(projectName: string, ownerEmail: string): Promise<{ token: string; projectId: string }> {
  const db = await adminDb();
  try {
    const { rows } = await db.query<{ id: string; owner_id: string }>(
      `select p.id, p.owner_id from public.projects p join auth.users u on u.id = p.owner_id where p.name = $1 and u.email = $2`,
      [projectName, ownerEmail],
    );
    const project = rows[0];
    if (!project) throw new Error(`no project ${projectName}`);
    const invite = await db.query<{ token: string }>(
      `insert into public.project_invites (project_id, role, created_by) values ($1, 'editor', $2) returning token`,
      [project.id, project.owner_id],
    );
    return { token: invite.rows[0]?.token ?? '', projectId: project.id };
  } finally {
    await db.end();
  }
}

describe('projects list, live across two browsers', () => {
  it('creates, shares by invite, renames and deletes; the other list follows live', async () => {
    const a = await signUp();
    const b = await signUp();
    await a.page.getByRole('heading', { name: 'Your projects' }).waitFor();
    await b.page.getByRole('heading', { name: 'Your projects' }).waitFor();

    const name = `Orbit ${Date.now().toString(36)}`;
    await a.page.getByRole('button', { name: 'New project' }).click();
    const dialog = a.page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Description').fill('Planets and moons');
    await dialog.getByLabel('Visibility').selectOption('link');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await projectLink(a.page, name).waitFor();
    const row = a.page.getByTestId('project-row').filter({ hasText: name });
    expect(await row.getByText('Owner').isVisible()).toBe(true);
    expect(await row.getByText('Link', { exact: true }).isVisible()).toBe(true);
    await row.getByText('1 member', { exact: true }).waitFor();

    // B accepts an invite in a second tab; B's list (first tab) shows the project live.
    const { token, projectId } = await inviteFor(name, a.email);
    const bTab = await b.context.newPage();
    await bTab.goto(`${app.url}/invite/${token}`);
    await bTab.waitForURL(`**/p/${projectId}`);
    await projectLink(b.page, name).waitFor();
    const bRow = b.page.getByTestId('project-row').filter({ hasText: name });
    expect(await bRow.getByText('Editor').isVisible()).toBe(true);
    // The member count follows the join on both lists, without a reload.
    await bRow.getByText('2 members', { exact: true }).waitFor();
    await row.getByText('2 members', { exact: true }).waitFor();
    // Editors rename; only owners share and delete.
    expect(await bRow.getByRole('button', { name: `Delete ${name}` }).count()).toBe(0);

    await a.page.getByRole('button', { name: `Rename ${name}` }).click();
    await a.page.getByLabel('Project name').fill(`${name} II`);
    await a.page.getByRole('button', { name: 'Save name' }).click();
    await projectLink(a.page, `${name} II`).waitFor();
    await projectLink(b.page, `${name} II`).waitFor();

    // Share settings: the link an owner copies is the /s/ link.
    await a.page.getByRole('button', { name: `Share settings for ${name} II` }).click();
    const link = await a.page.getByLabel('Share link').inputValue();
    expect(link).toMatch(new RegExp(`/s/[0-9a-f]{32}$`));

    await a.page.getByRole('button', { name: `Delete ${name} II` }).click();
    await a.page.getByRole('alertdialog').getByRole('button', { name: 'Delete project' }).click();
    await projectLink(a.page, `${name} II`).waitFor({ state: 'detached' });
    await projectLink(b.page, `${name} II`).waitFor({ state: 'detached' });

    // A reload keeps both signed in, on their lists.
    await a.page.reload();
    await a.page.getByRole('heading', { name: 'Your projects' }).waitFor();
    expect(await a.page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);

    // Back and forward move between pages without a reload.
    await b.page.getByRole('link', { name: 'Profile' }).click();
    await b.page.getByRole('heading', { name: 'Your profile' }).waitFor();
    await b.page.goBack();
    await b.page.getByRole('heading', { name: 'Your projects' }).waitFor();
    await b.page.goForward();
    await b.page.getByRole('heading', { name: 'Your profile' }).waitFor();
  });

  it('says what is wrong with a bad invite link, and what to do', async () => {
    // Well formed, but no invite has it: the function answers invite_not_found.
    const { page } = await signUp(`/invite/${'ab'.repeat(18)}`);
    await page.getByRole('heading', { name: 'This invite link doesn’t work' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('This invite link is not valid.');
    await page.goto(`${app.url}/invite/not-hex`);
    await page.getByRole('heading', { name: 'This invite link doesn’t work' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('malformed');
    await page.getByRole('link', { name: 'Go to your projects' }).click();
    await page.getByRole('heading', { name: 'Your projects' }).waitFor();
  });
});

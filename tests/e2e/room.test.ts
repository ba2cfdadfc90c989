import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createMembersAdapter } from '../../src/adapters/supabase/members.ts';
import { useBrowserApp } from './harness.ts';
import { insertMachine, inviteToken, signUpInBrowser, type Client } from './people.ts';

/**
 * The project room in two browsers: A and B see each other's
 * presence avatar; A renames the project and B sees it without reloading; A makes B a
 * viewer and B's editing controls disappear live; a reload keeps both in the room; B
 * signs out and A sees B leave. B joins by opening A's invite link (the /invite route).
 * The room lists machines as cards, each with a picture of its chart named after it; a
 * card's menu deletes it; on a phone nothing is wider than the window.
 * Elements are found by role and name.
 */

const app = useBrowserApp({ timeout: 180_000 });

interface Person {
  page: Page;
  email: string;
  name: string;
  client: Client;
}

/** Signs up through the UI, and signs the same person in from Node for setup steps. */
const signUp = (tag: string): Promise<Person> => signUpInBrowser(app, tag);

const roomHeading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name });
const live = (page: Page) => page.getByRole('status').filter({ hasText: /^Live$/ });
const hereNow = (page: Page) => page.getByRole('list', { name: 'Here now' });

async function openRoom(person: Person, projectId: string, name: string) {
  await person.page.goto(`${app.url}/p/${projectId}`);
  await roomHeading(person.page, name).waitFor();
  await live(person.page).waitFor();
}

describe('project room, two browsers', () => {
  it('presence, live rename, live role change, reload, and leaving', async () => {
    const a = await signUp('room-a');
    const b = await signUp('room-b');

    // A creates the project through the projects page and opens it from the list.
    await a.page.getByRole('button', { name: 'New project' }).click();
    await a.page.getByLabel('Name', { exact: true }).fill('Signal box');
    await a.page.getByRole('button', { name: 'Create project' }).click();
    await a.page.getByRole('link', { name: 'Signal box' }).click();
    await a.page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    await roomHeading(a.page, 'Signal box').waitFor();
    await live(a.page).waitFor();
    const project = { id: a.page.url().split('/').pop() as string };

    // A creates an editor invite link in the room and copies it from the field.
    await a.page.getByLabel('Invite role').selectOption('editor');
    await a.page.getByLabel('Link expires').selectOption('7');
    await a.page.getByRole('button', { name: 'Create invite link' }).click();
    const link = await a.page.getByLabel('Invite link', { exact: true }).inputValue();
    expect(link).toMatch(new RegExp(`^${app.url}/invite/[0-9a-f]{36}$`));
    await a.page.getByRole('list', { name: 'Active invite links' }).getByRole('listitem').first().waitFor();

    // B opens the link: the accept route joins and lands in the room.
    await b.page.goto(link);
    await b.page.waitForURL(`${app.url}/p/${project.id}`);
    await roomHeading(b.page, 'Signal box').waitFor();
    await live(b.page).waitFor();

    // Each sees the other's presence avatar.
    await hereNow(a.page)
      .getByRole('img', { name: `${b.name} is here` })
      .waitFor();
    await hereNow(b.page)
      .getByRole('img', { name: `${a.name} is here` })
      .waitFor();
    await a.page.getByRole('img', { name: `${b.name} (online)` }).waitFor();

    // A renames; B sees the new name without reloading.
    await a.page.getByRole('button', { name: 'Rename project' }).click();
    await a.page.getByLabel('Project name').fill('Signal box, north');
    await a.page.getByRole('button', { name: 'Save name' }).click();
    await roomHeading(b.page, 'Signal box, north').waitFor();

    // A makes B a viewer; B's editing controls disappear live.
    await b.page.getByRole('button', { name: 'Rename project' }).waitFor();
    await a.page.getByLabel(`Role for ${b.name}`).selectOption('viewer');
    await b.page.getByRole('button', { name: 'Rename project' }).waitFor({ state: 'detached' });
    await b.page.getByText('Read-only: you are viewing this project.').waitFor();

    // A reload keeps everyone signed in and in the room.
    await b.page.reload();
    await roomHeading(b.page, 'Signal box, north').waitFor();
    await live(b.page).waitFor();
    expect(await b.page.getByRole('button', { name: 'Rename project' }).count()).toBe(0);
    await a.page.reload();
    await live(a.page).waitFor();
    await hereNow(a.page)
      .getByRole('img', { name: `${b.name} is here` })
      .waitFor();

    // B signs out; A sees B leave.
    await b.page.getByRole('button', { name: 'Sign out' }).click();
    await b.page.getByRole('heading', { name: 'Sign in to Chartroom' }).waitFor();
    await hereNow(a.page)
      .getByRole('img', { name: `${b.name} is here` })
      .waitFor({ state: 'detached' });
    await a.page.getByRole('img', { name: b.name, exact: true }).waitFor();
  }, 120_000);

  it('an owner removes a member, who is told so at once', async () => {
    const a = await signUp('room-rm-a');
    const b = await signUp('room-rm-b');
    const { data: project, error } = await a.client
      .from('projects')
      .insert({ name: 'Level crossing' })
      .select('id')
      .single();
    if (error) throw error;
    await createMembersAdapter(b.client).acceptInvite(await inviteToken(a.client, project.id, 'editor'));
    await openRoom(a, project.id, 'Level crossing');
    await openRoom(b, project.id, 'Level crossing');

    await a.page.getByRole('button', { name: `Remove ${b.name}` }).click();
    await a.page.getByRole('button', { name: 'Confirm removal' }).click();
    await b.page.getByRole('heading', { name: "You're no longer in this project" }).waitFor();
    expect(await b.page.getByRole('alert').textContent()).toMatch(/removed from this project/);
    await a.page.getByRole('img', { name: new RegExp(b.name) }).waitFor({ state: 'detached' });
  }, 90_000);

  it('shows a banner while the network is down, and recovers the room when it is back', async () => {
    const a = await signUp('room-net');
    const { data: project, error } = await a.client.from('projects').insert({ name: 'Junction' }).select('id').single();
    if (error) throw error;
    await openRoom(a, project.id, 'Junction');
    await a.page.context().setOffline(true);
    const banner = a.page.getByRole('alert').filter({ hasText: "You're offline" });
    await banner.waitFor();
    await a.page.getByRole('button', { name: 'Retry now' }).waitFor();
    // A change made elsewhere while this browser is offline...
    await a.client.from('projects').update({ name: 'Junction, renamed offline' }).eq('id', project.id);
    await a.page.context().setOffline(false);
    // ...is there once the network is back (live or by resync: Chromium's offline
    // emulation may keep an open WebSocket), and the banner goes.
    await roomHeading(a.page, 'Junction, renamed offline').waitFor();
    await live(a.page).waitFor();
    await banner.waitFor({ state: 'detached' });
  }, 90_000);

  it('lists machines as cards with a picture each, deletes one from its menu, and fits a phone', async () => {
    const a = await signUp('room-cards');
    const { data: project, error } = await a.client.from('projects').insert({ name: 'Yard' }).select('id').single();
    if (error) throw error;
    const light = {
      id: 'light',
      initial: 'green',
      states: { green: { on: { NEXT: 'amber' } }, amber: { on: { NEXT: 'red' } }, red: { on: { NEXT: 'green' } } },
    };
    const door = {
      id: 'door',
      initial: 'shut',
      states: { shut: { on: { OPEN: 'open' } }, open: { on: { SHUT: 'shut' } } },
    };
    await insertMachine(a.client, project.id, 'Traffic light', light);
    await insertMachine(a.client, project.id, 'Door', door);
    await openRoom(a, project.id, 'Yard');

    const cards = a.page.getByRole('list', { name: 'Machines' }).getByRole('listitem');
    await cards.filter({ hasText: 'Door' }).waitFor();
    expect(await cards.count()).toBe(2);
    for (const name of ['Traffic light', 'Door']) {
      const card = cards.filter({ has: a.page.getByRole('link', { name, exact: true }) });
      const picture = card.getByRole('img', { name, exact: true });
      expect(await picture.count()).toBe(1);
      // The picture is the chart: a box per top-level state.
      expect(await picture.locator('rect.chart-thumb-state').count()).toBe(name === 'Door' ? 2 : 3);
      expect(await card.getByText(/edited (just now|\d+ min ago) by you$/).count()).toBe(1);
    }

    // On a phone: one column, and nothing wider than the window.
    await a.page.setViewportSize({ width: 390, height: 844 });
    const overflowing = await a.page.evaluate(() =>
      [...document.querySelectorAll('main *')]
        .filter((el) => {
          const box = el.getBoundingClientRect();
          return box.width > 0 && (box.right > window.innerWidth + 0.5 || box.left < -0.5);
        })
        .map((el) => `${el.tagName}.${el.className}`),
    );
    expect(overflowing).toEqual([]);
    expect(await a.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Deleting is behind the card's menu, and asks first.
    await a.page.getByRole('button', { name: 'Actions for Door' }).click();
    await a.page.getByRole('menu', { name: 'Actions for Door' }).getByRole('menuitem', { name: 'Delete' }).click();
    await a.page.getByRole('button', { name: 'Delete Door' }).click();
    await a.page.getByRole('link', { name: 'Door', exact: true }).waitFor({ state: 'detached' });
    expect(await cards.count()).toBe(1);
    expect(await a.page.getByRole('img', { name: 'Traffic light', exact: true }).count()).toBe(1);
  }, 90_000);
});

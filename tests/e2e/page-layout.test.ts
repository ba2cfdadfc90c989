import type { SupabaseClient } from '@supabase/supabase-js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Database, Json } from '../../src/adapters/supabase/database.types.ts';
import { createMembersAdapter } from '../../src/adapters/supabase/members.ts';
import { loadExample } from '../../src/features/canvas/examples.ts';
import { anonClient, signedInClient } from '../setup/clients.ts';
import { PASSWORD, showPanel, useBrowserApp } from './harness.ts';
import { inviteToken } from './people.ts';

/**
 * The machine page at a desktop (1280×800) and a phone (390×844) viewport:
 * - the machine page fills the window: its diagram pane is on screen, its code scrolls in
 *   its own pane, and Fit brings the chart into view (the code used to stretch the page to
 *   thousands of pixels and leave the diagram empty above the fold);
 * - the room's "Create" button takes the click (the form overflowed its card and the
 *   Members card, with three members, covered it); cards, dialog fields and "Copy link"
 *   stay inside their boxes.
 */

const app = useBrowserApp({ timeout: 180_000 });

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

type Client = SupabaseClient<Database>;

/** Elements (by selector) wider than their own box, or sticking out of the window. */
function overflowing(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      const r = el.getBoundingClientRect();
      const name = `${sel} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${name}: content ${el.scrollWidth}px in ${el.clientWidth}px`);
      if (r.right > window.innerWidth + 1) out.push(`${name}: right edge ${Math.round(r.right)} past the window`);
    }
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth}px)`);
    return out;
  }, selector);
}

/** True when the element's centre, as a click would find it, is the element itself (or inside it). */
async function clickable(page: Page, name: string): Promise<boolean> {
  const button = page.getByRole('button', { name, exact: true });
  await button.scrollIntoViewIfNeeded();
  return button.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && el.contains(hit);
  });
}

async function owner(): Promise<{ client: Client; email: string }> {
  const { email } = await signedInClient('layout-owner');
  const client = anonClient() as unknown as Client;
  const { error } = await client.auth.signInWithPassword({ email, password: PASSWORD });
  if (error) throw error;
  return { client, email };
}

describe('pages at desktop and phone sizes', () => {
  it('room: three members, the Create button takes the click, nothing overflows; new-project dialog fits', async () => {
    const a = await owner();
    const { data: project, error } = await a.client
      .from('projects')
      .insert({ name: 'Interlocking with a long, long name for a small screen' })
      .select('id')
      .single();
    if (error) throw error;
    // Two more members, with long names, as an invite makes them.
    const token = await inviteToken(a.client, project.id, 'editor');
    for (const tag of ['member-with-a-long-name-one', 'member-with-a-long-name-two']) {
      const other = (await signedInClient(tag)).client as unknown as Client;
      await createMembersAdapter(other).acceptInvite(token);
    }
    const { page } = await app.signIn(a.email, { viewport: SIZES.desktop });
    await page.goto(`${app.url}/p/${project.id}`);
    await page.getByRole('heading', { level: 1, name: /Interlocking/ }).waitFor();
    await page.getByRole('list', { name: 'Active invite links' }).getByRole('listitem').first().waitFor();
    await page.getByRole('button', { name: 'Create invite link' }).click();
    await page.getByRole('button', { name: 'Copy link' }).waitFor();

    for (const [label, size] of Object.entries(SIZES)) {
      await page.setViewportSize(size);
      await expect(page.locator('.room-member').count()).resolves.toBe(3);
      expect(await overflowing(page, '.room-panel'), label).toEqual([]);
      expect(await overflowing(page, '.room-created-link'), label).toEqual([]);
      expect(await clickable(page, 'Create'), `${label}: Create is covered`).toBe(true);
      expect(await clickable(page, 'Copy link'), `${label}: Copy link is covered`).toBe(true);
    }
    // The click lands: a machine is made from the form, and opens.
    await page.getByLabel('New machine').fill('Points');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/m\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1, name: 'Points' }).waitFor();

    await page.goto(app.url);
    for (const [label, size] of Object.entries(SIZES)) {
      await page.setViewportSize(size);
      await page.getByRole('button', { name: 'New project' }).click();
      const dialog = page.getByRole('dialog', { name: 'New project' });
      await dialog.waitFor();
      expect(await overflowing(page, 'dialog[open]'), label).toEqual([]);
      // Every field lies inside the dialog.
      const box = await dialog.boundingBox();
      for (const field of ['Name', 'Description', 'Visibility']) {
        const f = await dialog.getByLabel(field, { exact: true }).boundingBox();
        expect(
          f && box && f.x >= box.x && f.x + f.width <= box.x + box.width + 0.5,
          `${label}: ${field} overflows`,
        ).toBe(true);
      }
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await overflowing(page, '.topbar'), label).toEqual([]);
      expect(await clickable(page, 'Sign out'), `${label}: Sign out is cut off`).toBe(true);
    }
  }, 120_000);

  it('machine page: a tall config keeps the diagram on screen; Fit shows the chart; the code scrolls in its own panel', async () => {
    const a = await owner();
    const { data: project, error } = await a.client.from('projects').insert({ name: 'Tall' }).select('id').single();
    if (error) throw error;
    // The document statechart: its JSON is thousands of pixels tall.
    const definition = loadExample('document');
    const machine = await a.client
      .from('machines')
      .insert({ project_id: project.id, name: 'document', definition: definition as unknown as Json })
      .select('id')
      .single();
    if (machine.error) throw machine.error;

    for (const [label, size] of Object.entries(SIZES)) {
      const { page } = await app.signIn(a.email, { viewport: size });
      await page.goto(`${app.url}/p/${project.id}/m/${machine.data.id}`);
      await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
      // The diagram fills the page; the code is a tab of the side panel (a bottom sheet on a phone).
      await page.getByRole('region', { name: 'Diagram', exact: true }).waitFor();
      await page.locator('.st').first().waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Zoom to fit' }).click();

      const facts = await page.evaluate(() => {
        const stage = document.querySelector('.canvas-stage')?.getBoundingClientRect();
        const states = Array.from(document.querySelectorAll('.st')).map((el) => el.getBoundingClientRect());
        const seen = stage
          ? states.filter(
              (r) => r.bottom > stage.top && r.top < stage.bottom && r.right > stage.left && r.left < stage.right,
            ).length
          : 0;
        return {
          pageHeight: document.documentElement.scrollHeight,
          window: window.innerHeight,
          stageTop: stage?.top ?? -1,
          stageBottom: stage?.bottom ?? -1,
          stageHeight: stage?.height ?? 0,
          states: states.length,
          seen,
        };
      });
      // The page is the window: nothing below the fold, the diagram pane on screen and tall.
      expect(facts.pageHeight, label).toBeLessThanOrEqual(facts.window + 1);
      expect(facts.stageTop, label).toBeGreaterThanOrEqual(0);
      expect(facts.stageBottom, label).toBeLessThanOrEqual(facts.window + 1);
      expect(facts.stageHeight, label).toBeGreaterThan(label === 'phone' ? 250 : 300);
      // Fit puts every state inside the pane.
      expect(facts.seen, label).toBe(facts.states);
      // The long config scrolls inside the Code panel.
      await showPanel(page, 'Code');
      await page.locator('.code-host .cm-scroller').waitFor();
      const codeScrolls = await page.evaluate(() => {
        const scroller = document.querySelector<HTMLElement>('.code-host .cm-scroller');
        return scroller ? scroller.scrollHeight > scroller.clientHeight + 10 : false;
      });
      expect(codeScrolls, label).toBe(true);

      // The toolbar is one row, every tool inside the window (it wrapped to 3 rows on a phone).
      const bar = page.getByRole('toolbar', { name: 'Diagram tools' });
      const rows = await bar.evaluate((el) => {
        const middles = Array.from(el.querySelectorAll<HTMLElement>('button, select, input'))
          .filter((c) => c.offsetParent !== null)
          .map((c) => c.getBoundingClientRect())
          .map((r) => r.top + r.height / 2)
          .sort((x, y) => x - y);
        return middles.filter((m, i) => i === 0 || m - (middles[i - 1] ?? m) > 12).length;
      });
      expect(rows, `${label}: toolbar rows`).toBe(1);
      expect(await overflowing(page, '.canvas-toolbar'), label).toEqual([]);
      for (const name of ['Add child', 'Delete', 'Undo', 'Zoom to fit', 'Code', 'Inspector'])
        expect(await clickable(page, name), `${label}: ${name}`).toBe(true);
      // On a phone zoom, find and examples fold into "More tools"; elsewhere they show in line.
      const find = page.getByLabel('Find a state', { exact: true }); // a combobox: it suggests names
      if (label === 'phone') {
        await expect(find.isVisible()).resolves.toBe(false);
        await page.getByRole('button', { name: 'More tools' }).click();
      }
      await find.waitFor();
      expect(await clickable(page, 'Zoom in'), `${label}: Zoom in`).toBe(true);
      expect(await overflowing(page, '.canvas-toolbar'), label).toEqual([]);
      await page.context().close();
    }
  }, 120_000);
});

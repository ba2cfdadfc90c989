import fs from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/adapters/supabase/database.types.ts';
import { loadExample } from '../../src/features/canvas/examples.ts';
import { showPanel, useBrowserApp } from './harness.ts';
import { signUpPerson } from './people.ts';

/**
 * The machine page on a phone (390×844): the dock (Simulation, Tests, Timeline)
 * is a bottom sheet over the page's lower part. With any panel open, the page does not
 * scroll sideways, the panel's main control takes a click at its centre (nothing covers
 * it), and the diagram keeps a visible height above the sheet. Screenshots of each panel
 * go to tests/.tmp/phone-dock/ (look at them when changing this page).
 */

const app = useBrowserApp({ timeout: 180_000 });

const PHONE = { width: 390, height: 844 };
const SHOTS = path.resolve('tests/.tmp/phone-dock');

/** True when a click at the control's centre lands on it (or inside it). */
function takesClick(control: Locator): Promise<boolean> {
  return control.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return r.width > 0 && r.height > 0 && hit !== null && el.contains(hit);
  });
}

/** What the window shows: sideways overflow, and how much of the diagram pane is visible and uncovered. */
function pageFacts(page: Page) {
  return page.evaluate(() => {
    // The page's boxes, not the diagram's drawing: a chart larger than its pane (Fit on a
    // phone keeps names readable) is clipped by the pane and panned, it does not widen the page.
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter(
        (el): el is HTMLElement =>
          el instanceof HTMLElement &&
          el.offsetParent !== null &&
          el.getBoundingClientRect().right > window.innerWidth + 1,
      )
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 60));
    const stage = document.querySelector('.canvas-stage');
    const r = stage?.getBoundingClientRect();
    // The stage's rows that are on screen and not under anything else (the sheet, a bar).
    let visible = 0;
    if (stage && r) {
      const x = r.left + r.width / 2;
      for (let y = Math.max(0, Math.ceil(r.top)); y < Math.min(window.innerHeight, r.bottom); y += 2) {
        const hit = document.elementFromPoint(x, y);
        if (hit && stage.contains(hit)) visible += 2;
      }
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      wide,
      visibleStage: visible,
    };
  });
}

const PANELS = [
  {
    name: 'Simulation',
    main: (p: Page) => p.getByRole('region', { name: 'Simulation' }).getByRole('button', { name: 'Simulate' }),
  },
  { name: 'Tests', main: (p: Page) => p.getByRole('button', { name: 'Generate paths' }) },
  // The timeline's main control is its person filter (its entries are read, not pressed).
  { name: 'Timeline', main: (p: Page) => p.getByRole('region', { name: 'Timeline' }).getByLabel('Person') },
] as const;

describe('the machine page on a phone', () => {
  it('shows each dock panel as a bottom sheet: nothing wider than the screen, its main control clickable, the diagram visible', async () => {
    const owner = await signUpPerson('phone', 'Pia');
    const { data: project, error } = await owner.client
      .from('projects')
      .insert({ name: 'Phone' })
      .select('id')
      .single();
    if (error) throw error;
    const definition = loadExample('connection');
    const machine = await owner.client
      .from('machines')
      .insert({ project_id: project.id, name: 'connection', definition: definition as unknown as Json })
      .select('id')
      .single();
    if (machine.error) throw machine.error;

    const { page } = await app.signIn(owner.email, { viewport: PHONE });
    await page.goto(`${app.url}/p/${project.id}/m/${machine.data.id}`);
    await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
    await page.locator('.st').first().waitFor({ timeout: 60_000 });
    await fs.mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'closed.png') });

    for (const panel of PANELS) {
      await showPanel(page, panel.name);
      const main = panel.main(page);
      await main.waitFor();
      await page.screenshot({ path: path.join(SHOTS, `${panel.name.toLowerCase()}.png`) });
      const facts = await pageFacts(page);
      expect(facts.scrollWidth, `${panel.name}: the page scrolls sideways`).toBeLessThanOrEqual(facts.innerWidth);
      expect(facts.wide, `${panel.name}: wider than the screen`).toEqual([]);
      expect(await takesClick(main), `${panel.name}: its main control is covered`).toBe(true);
      expect(facts.visibleStage, `${panel.name}: the diagram's visible height`).toBeGreaterThan(120);
      // Every tab stays reachable while a panel is open.
      for (const tab of PANELS)
        expect(
          await takesClick(
            page.getByRole('group', { name: 'Panels' }).getByRole('button', { name: tab.name, exact: true }),
          ),
          `${panel.name} open: the ${tab.name} tab is covered`,
        ).toBe(true);
    }
    // The main controls work, not only take the click: Simulate starts a run.
    await showPanel(page, 'Simulation');
    await PANELS[0].main(page).click();
    await page.getByRole('button', { name: 'Step back' }).waitFor();
  }, 180_000);
});

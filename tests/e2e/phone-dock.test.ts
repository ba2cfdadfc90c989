import fs from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { loadExample } from '../../src/features/canvas/examples.ts';
import { closePanels, showPanel, useBrowserApp } from './harness.ts';
import { insertDefinition, signUpPerson } from './people.ts';

/**
 * The machine page on a phone (390×844): the dock (Simulation, Tests, Timeline)
 * is a bottom sheet over the page's lower part. With any panel open, the page does not
 * scroll sideways, the panel's main control takes a click at its centre (nothing covers
 * it), and the diagram keeps a visible height above the sheet. A point comment's pin,
 * panned far away, is framed by its thread's Show on canvas in the diagram above the open
 * sheet, with room around it; a pin tapped low on the diagram shows above the sheet it
 * opens. Screenshots of each panel go to tests/.tmp/phone-dock/ (look
 * at them when changing this page).
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

/** A new person's own project with the `connection` example, opened on a phone. */
async function phoneMachine(tag: string, name: string): Promise<Page> {
  const owner = await signUpPerson(tag, name);
  const project = await owner.client.from('projects').insert({ name: 'Phone' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  const projectId = project.data.id;
  const machineId = await insertDefinition(owner.client, projectId, 'connection', loadExample('connection')!);

  const { page } = await app.signIn(owner.email, { viewport: PHONE });
  await page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
  await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
  await page.locator('.st').first().waitFor({ timeout: 60_000 });
  await fs.mkdir(SHOTS, { recursive: true });
  return page;
}

/** The part of the diagram a person sees: the stage's box down to the top of the sheet over it. */
const visibleStage = (page: Page) =>
  page.evaluate(() => {
    const stage = document.querySelector('.canvas-stage')!.getBoundingClientRect();
    const sheet = document.querySelector('.machine-dock')!.getBoundingClientRect();
    return { left: stage.left, right: stage.right, top: stage.top, bottom: Math.min(stage.bottom, sheet.top) };
  });

/** A point of the visible diagram on its empty background (a drag there pans), lowest first. */
const emptySpot = (page: Page) =>
  page.evaluate(() => {
    const stage = document.querySelector('.canvas-stage')!.getBoundingClientRect();
    const sheet = document.querySelector('.machine-dock')!.getBoundingClientRect();
    for (let y = Math.min(stage.bottom, sheet.top) - 12; y > stage.top; y -= 8)
      for (let x = stage.left + 12; x < stage.right; x += 8)
        if (document.elementFromPoint(x, y)?.classList.contains('diagram-bg')) return { x, y };
    throw new Error('No empty background in the visible diagram');
  });

describe('the machine page on a phone', () => {
  it('shows each dock panel as a bottom sheet: nothing wider than the screen, its main control clickable, the diagram visible', async () => {
    const page = await phoneMachine('phone', 'Pia');
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

  it("frames a point comment's pin above the open sheet when its thread's Show on canvas is pressed", async () => {
    const page = await phoneMachine('phone-pin', 'Pim');
    // Comment mode (nothing selected), and a point on the canvas near the stage's top.
    await page
      .getByRole('toolbar', { name: 'Diagram tools' })
      .getByRole('button', { name: 'Comment', exact: true })
      .click();
    const placer = page.getByRole('button', { name: 'Place a comment here' });
    await placer.click({ position: { x: 40, y: 120 } });
    const comments = page.getByRole('region', { name: 'Comments', exact: true });
    await comments.getByRole('combobox', { name: 'New comment' }).fill('A note on this spot');
    await comments.getByRole('button', { name: 'Comment', exact: true }).click();
    const pin = page.locator('[data-comment-anchor^="point:"] .comment-pin-mark');
    await pin.waitFor();

    // The sheet is up (the Comments panel); pan the canvas far away, above the sheet.
    const seen = await visibleStage(page);
    expect(seen.bottom - seen.top, 'the diagram shows above the open sheet').toBeGreaterThan(120);
    for (let i = 0; i < 4; i += 1) {
      const from = await emptySpot(page);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(from.x + 300, from.y - 200, { steps: 4 });
      await page.mouse.up();
    }
    // Inside the visible diagram, with `room` of its width and height kept clear around it.
    const inside = async (room = 0) => {
      const box = (await pin.boundingBox())!;
      const area = await visibleStage(page);
      const dx = (area.right - area.left) * room;
      const dy = (area.bottom - area.top) * room;
      return (
        box.x >= area.left + dx &&
        box.x + box.width <= area.right - dx &&
        box.y >= area.top + dy &&
        box.y + box.height <= area.bottom - dy
      );
    };
    expect(await inside(), 'the pin is panned out of the visible diagram').toBe(false);

    // From the panel: Show on canvas frames the pin in the diagram above the sheet, the sheet still up.
    const thread = comments.getByRole('article').filter({ hasText: 'A note on this spot' });
    await thread.getByRole('button', { name: 'Show on canvas' }).click();
    // Framed with room around it: its middle half, not at the sheet's edge.
    await expect.poll(() => inside(0.25), { timeout: 10_000 }).toBe(true);
    expect(await page.locator('.machine-dock').getAttribute('data-open')).toBe('comments');
    await page.screenshot({ path: path.join(SHOTS, 'point-thread.png') });
  }, 180_000);

  it('keeps a comment pin tapped low on the diagram above the Comments sheet it opens', async () => {
    const page = await phoneMachine('phone-tap', 'Tam');
    await page
      .getByRole('toolbar', { name: 'Diagram tools' })
      .getByRole('button', { name: 'Comment', exact: true })
      .click();
    await page.getByRole('button', { name: 'Place a comment here' }).click({ position: { x: 40, y: 120 } });
    const comments = page.getByRole('region', { name: 'Comments', exact: true });
    await comments.getByRole('combobox', { name: 'New comment' }).fill('Low on the diagram');
    await comments.getByRole('button', { name: 'Comment', exact: true }).click();
    const pin = page.locator('[data-comment-anchor^="point:"] .comment-pin-mark');
    await pin.waitFor();
    // The sheet lowered; the pin dragged down to the stage's foot (where the sheet will rise).
    await closePanels(page);
    const stage = (await page.locator('.canvas-stage').boundingBox())!;
    const start = (await pin.boundingBox())!;
    const from = await emptySpot(page);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x, from.y + (stage.y + stage.height - 40 - start.y), { steps: 6 });
    await page.mouse.up();
    const low = (await pin.boundingBox())!;
    expect(low.y, 'the pin sits low on the diagram').toBeGreaterThan(stage.y + stage.height / 2);

    // Tapped where it is drawn, as a person's finger does.
    await page.mouse.click(low.x + low.width / 2, low.y + low.height / 2);
    await page.locator('.machine-dock[data-open="comments"]').waitFor();
    const above = async () => {
      const box = (await pin.boundingBox())!;
      const area = await visibleStage(page);
      return box.y >= area.top && box.y + box.height <= area.bottom;
    };
    await expect.poll(above, { timeout: 10_000 }).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'pin-tapped.png') });
  }, 180_000);
});

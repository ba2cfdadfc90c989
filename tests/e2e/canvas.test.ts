import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { serveCanvasFixture } from './canvas-fixture.ts';

/**
 * The canvas in Chromium: CanvasPage over a fixture
 * machine on a test page (tests/e2e/fixtures/canvas/), served by Vite's dev server so the
 * elkjs Web Worker runs as it does in the app.
 */
let browser: Browser;
let url: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ url, browser, close } = await serveCanvasFixture(''));
}, 120_000);

afterAll(() => close?.());

async function open(query = ''): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  await page.goto(url + query);
  await page.getByRole('button', { name: 'state cart', exact: true }).waitFor({ timeout: 60_000 });
  return page;
}

const definition = (page: Page): Promise<MachineDefinition> =>
  page.evaluate<MachineDefinition>(() => window.__definition);
const keys = async (page: Page) =>
  Object.values((await definition(page)).states)
    .map((s) => s.key)
    .sort();
const stateBox = (page: Page, name: string) => page.getByRole('button', { name: `state ${name}`, exact: true });

describe('canvas', () => {
  it('lays the diagram out under React StrictMode, as `npm run dev` mounts it (the layout worker survives the second mount)', async () => {
    const page = await open('?strict');
    for (const name of ['cart', 'payment', 'card', 'paid', 'done'])
      await expect(stateBox(page, name).count()).resolves.toBe(1);
    await expect(page.getByText('Laying out…').count()).resolves.toBe(0);
    await page.close();
  }, 90_000);

  it('renders every state with its name and transitions with labels, laid out by the worker', async () => {
    const page = await open();
    for (const name of ['cart', 'payment', 'card', 'paid', 'done'])
      await expect(stateBox(page, name).count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'transition PAY [valid]' }).count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'transition CHECKOUT' }).count()).resolves.toBe(1);
    await expect(page.locator('.initial-marker').count()).resolves.toBe(2);
    await expect(page.locator('.st-final .st-inner').count()).resolves.toBe(2);
    await page.close();
  }, 90_000);

  it('selects on click, renames in place, adds a child, deletes, undoes and redoes', async () => {
    const page = await open();
    await stateBox(page, 'cart').click();
    await expect(stateBox(page, 'cart').getAttribute('aria-pressed')).resolves.toBe('true');
    await stateBox(page, 'cart').dblclick();
    const input = page.getByRole('textbox', { name: 'State name' });
    await input.fill('basket');
    await input.press('Enter');
    await stateBox(page, 'basket').waitFor();
    expect(await keys(page)).toContain('basket');

    await page.getByRole('button', { name: 'Add child' }).click();
    const child = page.getByRole('textbox', { name: 'State name' });
    await child.fill('items');
    await child.press('Enter');
    await stateBox(page, 'items').waitFor();
    const def = await definition(page);
    const basket = Object.values(def.states).find((s) => s.key === 'basket');
    expect(basket?.type).toBe('compound');
    expect(basket && def.states[basket.children[0] ?? '']?.key).toBe('items');

    await stateBox(page, 'items').click();
    await page.keyboard.press('Delete');
    await stateBox(page, 'items').waitFor({ state: 'detached' });
    expect(await keys(page)).not.toContain('items');
    await page.keyboard.press('Control+z');
    await stateBox(page, 'items').waitFor();
    await page.keyboard.press('Control+Shift+z');
    await stateBox(page, 'items').waitFor({ state: 'detached' });
    await page.close();
  }, 90_000);

  it('drags from a state handle to another state to add a transition, then names its event', async () => {
    const page = await open();
    await stateBox(page, 'done').click();
    const from = await stateBox(page, 'done').locator('.st-handle').boundingBox();
    const to = await stateBox(page, 'cart').boundingBox();
    if (!from || !to) throw new Error('no geometry');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    await page.mouse.up();
    const input = page.getByRole('textbox', { name: 'Event name' });
    await input.fill('RESTART');
    await input.press('Enter');
    await page.getByRole('button', { name: 'transition RESTART' }).waitFor();
    const def = await definition(page);
    const t = Object.values(def.transitions).find((x) => x.event === 'RESTART');
    expect(t && def.states[t.source]?.key).toBe('done');
    expect(t && def.states[t.targets[0] ?? '']?.key).toBe('cart');
    await page.close();
  }, 90_000);

  it('drags the end of a selected transition onto another state to retarget it, outlining the drop target; Undo restores it', async () => {
    const page = await open();
    const stateId = async (key: string) =>
      Object.values((await definition(page)).states).find((s) => s.key === key)?.id;
    const checkoutTargets = async () =>
      Object.values((await definition(page)).transitions).find((t) => t.event === 'CHECKOUT')?.targets;
    const [payment, done] = [await stateId('payment'), await stateId('done')];
    expect(await checkoutTargets()).toEqual([payment]);
    const handle = page.getByRole('button', { name: 'Drag to retarget CHECKOUT → payment' });
    await expect(handle.count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'transition CHECKOUT' }).locator('.tr-label').click();
    await handle.waitFor();
    const from = await handle.boundingBox();
    const to = await stateBox(page, 'done').boundingBox();
    if (!from || !to) throw new Error('no geometry');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    // The rubber band and the drop target while dragging.
    await page.locator(`.drop-target[data-drop-target="${done}"]`).waitFor();
    await expect(page.locator('.connect-line').count()).resolves.toBe(1);
    await page.mouse.up();
    await page.getByRole('button', { name: 'Drag to retarget CHECKOUT → done' }).waitFor();
    expect(await checkoutTargets()).toEqual([done]);
    await expect(page.locator('.drop-target').count()).resolves.toBe(0);

    // A drop on empty space changes nothing.
    const again = await page.getByRole('button', { name: 'Drag to retarget CHECKOUT → done' }).boundingBox();
    if (!again) throw new Error('no geometry');
    await page.mouse.move(again.x + again.width / 2, again.y + again.height / 2);
    await page.mouse.down();
    await page.mouse.move(1300, 760, { steps: 4 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Drag to retarget CHECKOUT → done' }).waitFor();
    expect(await checkoutTargets()).toEqual([done]);

    await page.keyboard.press('Control+z');
    await page.getByRole('button', { name: 'Drag to retarget CHECKOUT → payment' }).waitFor();
    expect(await checkoutTargets()).toEqual([payment]);
    await page.close();
  }, 90_000);

  it('shows the JSON config; an invalid edit shows an inline error and changes nothing; a valid one updates the diagram', async () => {
    const page = await open();
    const editor = page.locator('.cm-content');
    await expect(editor.textContent()).resolves.toContain('"CHECKOUT"');
    const before = await definition(page);
    await editor.click();
    // Replace the whole text through the editor's DOM input: select all, then type.
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText('{ "id": "checkout", "initial": "nowhere", "states": { "cart": {} } }');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.code-errors').waitFor();
    await expect(page.locator('.code-errors').textContent()).resolves.toMatch(/nowhere/);
    await page.locator('.cm-lint-marker-error, .cm-lintRange-error').first().waitFor();
    expect(await definition(page)).toEqual(before);

    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText(
      JSON.stringify({ id: 'checkout', initial: 'cart', states: { cart: { on: { CHECKOUT: 'review' } }, review: {} } }),
    );
    await page.getByRole('button', { name: 'Apply' }).click();
    await stateBox(page, 'review').waitFor();
    await stateBox(page, 'payment').waitFor({ state: 'detached' });
    const after = await definition(page);
    // The kept state keeps its id: the edit became ops, not a replacement.
    const cart = Object.values(before.states).find((s) => s.key === 'cart');
    expect(cart && after.states[cart.id]?.key).toBe('cart');
    await page.close();
  }, 90_000);

  it('pans by dragging the background and zooms with the buttons; a viewer cannot edit', async () => {
    const page = await open('?viewer');
    await expect(page.getByRole('button', { name: 'Add child' }).count()).resolves.toBe(0);
    await stateBox(page, 'cart').dblclick();
    await expect(page.getByRole('textbox', { name: 'State name' }).count()).resolves.toBe(0);
    // A selected transition shows no handle to retarget it.
    const checkout = page.getByRole('button', { name: 'transition CHECKOUT' });
    await checkout.locator('.tr-label').click();
    await expect(checkout.getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(page.locator('[data-retarget-for]').count()).resolves.toBe(0);
    await page.keyboard.press('Delete');
    expect(await keys(page)).toContain('cart');
    const g = page.locator('g.viewport');
    const t0 = await g.getAttribute('transform');
    await page.mouse.move(300, 700);
    await page.mouse.down();
    await page.mouse.move(200, 650, { steps: 4 });
    await page.mouse.up();
    const t1 = await g.getAttribute('transform');
    expect(t1).not.toBe(t0);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    expect(await g.getAttribute('transform')).not.toBe(t1);
    await page.close();
  }, 90_000);
  it('asks before an example replaces the machine, and replaces it only when told to', async () => {
    const page = await open();
    const before = await keys(page);
    await page.getByLabel('Load example').selectOption('layout');
    const ask = page.getByRole('alertdialog');
    await ask.waitFor();
    expect(await ask.textContent()).toContain('Replace this whole machine with the example “layout”?');
    expect(await keys(page)).toEqual(before);
    await page.getByRole('button', { name: 'Keep this machine' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await keys(page)).toEqual(before);

    await page.getByLabel('Load example').selectOption('layout');
    await page.getByRole('button', { name: 'Replace machine' }).click();
    await stateBox(page, 'running').waitFor();
    // The layout machine's own states (with the actor tree it also has `broken`, its worker gone for good).
    expect(await keys(page)).toEqual(['', 'broken', 'idle', 'running']);
    await page.close();
  }, 90_000);

  it('draws tags on their own line under the name and parallel regions apart', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    await page.goto(url + '?fixture=parallel');
    await stateBox(page, 'paused').waitFor({ timeout: 60_000 });
    const boxes = await page.evaluate(() => {
      const rect = (el: Element | null) => {
        const r = el?.getBoundingClientRect();
        return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
      };
      const states = Array.from(document.querySelectorAll('[data-state-id]'));
      return {
        texts: states
          .filter((g) => g.querySelector(':scope > .st-tags'))
          .map((g) => ({
            name: rect(g.querySelector(':scope > .st-name')),
            tags: rect(g.querySelector(':scope > .st-tags')),
            box: rect(g.querySelector(':scope > .st-box')),
          })),
        regions: states
          .filter((g) => g.classList.contains('st-region'))
          .map((g) => rect(g.querySelector(':scope > .st-box'))),
      };
    });
    type R = { x: number; y: number; width: number; height: number } | null;
    const apart = (a: R, b: R) =>
      !a || !b || a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
    const inside = (a: R, b: R) =>
      !!a &&
      !!b &&
      a.x >= b.x - 0.5 &&
      a.y >= b.y - 0.5 &&
      a.x + a.width <= b.x + b.width + 0.5 &&
      a.y + a.height <= b.y + b.height + 0.5;
    expect(boxes.texts).toHaveLength(5);
    for (const t of boxes.texts) {
      expect(apart(t.name, t.tags), 'tags over the name').toBe(true);
      expect(inside(t.tags, t.box), 'tags outside their state').toBe(true);
    }
    expect(boxes.regions).toHaveLength(3);
    for (let i = 0; i < boxes.regions.length; i++) {
      for (let j = i + 1; j < boxes.regions.length; j++) {
        const [a, b] = [boxes.regions[i] ?? null, boxes.regions[j] ?? null];
        // A gap, not shared borders: grown by 2 px on each side they still do not meet.
        const grow = (r: R): R => (r ? { x: r.x - 2, y: r.y - 2, width: r.width + 4, height: r.height + 4 } : null);
        expect(apart(grow(a), grow(b)), 'regions touch or overlap').toBe(true);
      }
    }
    await page.close();
  }, 90_000);
  it('a 300-state chart opens collapsed; find jumps to a hidden state; expand and collapse; a minimap', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url + '?generated=300');
    await page
      .getByRole('button', { name: /^Expand / })
      .first()
      .waitFor({ timeout: 60_000 });
    const drawn = () => page.locator('[data-state-id]').count();
    expect(await drawn()).toBeLessThanOrEqual(81);
    await page.getByRole('img', { name: 'Minimap: click to move the view' }).waitFor();
    const def = await definition(page);
    // A state deep inside a collapsed one.
    const deep = Object.values(def.states)
      .filter((s) => s.children.length === 0)
      .at(-1);
    if (!deep) throw new Error('no leaf');
    await expect(stateBox(page, deep.key).count()).resolves.toBe(0);
    // The box suggests every state's name, hidden ones too, once it is in use (focused).
    const suggested = page.locator(`#canvas-state-names option[value="${deep.key}"]`);
    await expect(suggested.count()).resolves.toBe(0);
    await page.getByLabel('Find a state').focus();
    await suggested.waitFor({ state: 'attached' });
    await page.getByLabel('Find a state').fill(deep.key);
    await page.getByLabel('Find a state').press('Enter');
    await stateBox(page, deep.key).waitFor();
    await expect(stateBox(page, deep.key).getAttribute('aria-pressed')).resolves.toBe('true');
    // In view: its box lies inside the stage.
    await expect
      .poll(async () => {
        const [box, stage] = await Promise.all([
          stateBox(page, deep.key).boundingBox(),
          page.locator('.canvas-stage').boundingBox(),
        ]);
        return (
          !!box &&
          !!stage &&
          box.x >= stage.x &&
          box.y >= stage.y &&
          box.x + box.width <= stage.x + stage.width &&
          box.y + box.height <= stage.y + stage.height
        );
      })
      .toBe(true);
    // Collapse its parent again by its switch, then expand it.
    const parent = def.states[deep.parent ?? ''];
    if (!parent) throw new Error('no parent');
    await page.getByRole('button', { name: `Collapse ${parent.key}`, exact: true }).click();
    await stateBox(page, deep.key).waitFor({ state: 'detached' });
    // Collapsed, it is laid out smaller and may move out of the view: find brings it back.
    await page.getByLabel('Find a state').fill(parent.key);
    await page.getByLabel('Find a state').press('Enter');
    await page.getByRole('button', { name: `Expand ${parent.key}`, exact: true }).click();
    await stateBox(page, deep.key).waitFor();
    await page.getByLabel('Find a state').fill('no-such-state');
    await page.getByLabel('Find a state').press('Enter');
    await page.getByText('No state named “no-such-state”').waitFor();
    await page.close();
  }, 120_000);
});

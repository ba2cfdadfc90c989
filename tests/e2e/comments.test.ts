import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox } from './machine-page.ts';
import { pairOnMachine, type SignedUp } from './people.ts';

/**
 * A comment thread with a mention, two browsers through the real app and backend: Ada
 * selects the state `paying`, presses Comment and writes to @Bo (picked from the
 * completion list); Bo sees the pin on `paying` and the thread live, and the unread count
 * on the Comments tab; the pin opens the thread in the panel and selects `paying`, and the
 * thread's Show on canvas selects it again; Bo replies; Ada sees the reply and resolves the thread; the pin goes
 * and Bo's thread moves to Resolved. Then a thread at a point of the canvas, and one on a
 * timeline entry and one on a simulation step, each of which Bo goes to from the panel. Read through the test contract: the button Comment,
 * the region Comments with its articles, Reply and Resolve, `data-comment-anchor`.
 */

const app = useBrowserApp({ timeout: 240_000 });
let ada: SignedUp & { page: Page };
let bo: SignedUp & { page: Page };
let projectId: string;
let machineId: string;

const CHECKOUT = {
  id: 'checkout',
  initial: 'cart',
  states: { cart: { on: { PAY: 'paying' } }, paying: { on: { DONE: 'paid' } }, paid: {} },
};

const comments = (page: Page): Locator => page.getByRole('region', { name: 'Comments', exact: true });
const threads = (page: Page): Locator => comments(page).getByRole('article');
const pin = (page: Page, anchor: string): Locator => page.locator(`[data-comment-anchor="${anchor}"]`);

beforeAll(async () => {
  const pair = await pairOnMachine(app, 'comments', ['Ada', 'Bo'], 'Comment room', {
    name: 'Checkout',
    config: CHECKOUT,
  });
  ({ first: ada, second: bo, projectId, machineId } = pair);
}, 240_000);

describe('a comment thread between two browsers', () => {
  it('Ada asks @Bo on a state, Bo sees the pin and replies live, Ada resolves', async () => {
    await Promise.all([
      openMachinePage(app, ada.page, projectId, machineId, 'paying'),
      openMachinePage(app, bo.page, projectId, machineId, 'paying'),
    ]);
    await showPanel(bo.page, 'Inspector');

    // Ada: select the state, Comment, mention Bo through the completion list.
    await stateBox(ada.page, 'paying').click();
    await ada.page.getByRole('button', { name: 'Comment', exact: true }).click();
    const box = comments(ada.page).getByRole('combobox', { name: 'New comment' });
    await box.fill('Why does this retry **three** times? @B');
    await comments(ada.page).getByRole('option', { name: '@Bo' }).click();
    await expect.poll(() => box.inputValue()).toBe('Why does this retry **three** times? @Bo ');
    await comments(ada.page).getByRole('button', { name: 'Comment', exact: true }).click();
    await threads(ada.page).first().waitFor();
    await pin(ada.page, 'paying').waitFor();

    // Bo: the pin on `paying`, the unread count, the thread with Ada's words (Markdown shown as such).
    await pin(bo.page, 'paying').waitFor({ timeout: 20_000 });
    const tab = bo.page.getByRole('group', { name: 'Panels' }).getByRole('button', { name: 'Comments', exact: true });
    await expect.poll(() => tab.locator('[data-unread]').getAttribute('data-unread')).toBe('1');
    // The pin does something: chosen, it opens the Comments panel on its thread, focused, and
    // selects `paying` on the diagram.
    await pin(bo.page, 'paying').click();
    await comments(bo.page).locator('article[data-focused]').waitFor();
    await expect
      .poll(() => bo.page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null))
      .toBe('Thread on state paying by Ada');
    await bo.page.locator('.canvas-stage .st.is-selected[data-state-path="paying"]').waitFor();
    // The thread shows its anchor on the canvas: selected again after Bo clears the selection.
    await bo.page.keyboard.press('Escape');
    await bo.page.locator('.canvas-stage .diagram-bg').click({ position: { x: 5, y: 5 } });
    await bo.page.locator('.canvas-stage .st.is-selected').waitFor({ state: 'detached' });
    await threads(bo.page).first().getByRole('button', { name: 'Show on canvas' }).click();
    await bo.page.locator('.canvas-stage .st.is-selected[data-state-path="paying"]').waitFor();
    await showPanel(bo.page, 'Comments');
    const thread = threads(bo.page).first();
    await thread.getByText('Why does this retry').waitFor();
    expect(await thread.locator('strong', { hasText: 'three' }).count()).toBe(1);
    expect(await thread.getAttribute('aria-label')).toBe('Thread on state paying by Ada');
    await comments(bo.page).getByRole('button', { name: 'Mentions me' }).click();
    expect(await threads(bo.page).count()).toBe(1);

    // Bo replies; Ada sees it live.
    await thread.getByRole('button', { name: 'Reply' }).click();
    await thread
      .getByRole('combobox', { name: 'Reply' })
      .fill('Because the card network times out. See [the spec](https://example.com/spec).');
    await thread.getByRole('button', { name: 'Send reply' }).click();
    const adaThread = threads(ada.page).first();
    await adaThread.getByText('Because the card network times out.').waitFor({ timeout: 20_000 });
    const link = adaThread.getByRole('link', { name: 'the spec' });
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getAttribute('target')).toBe('_blank');

    // Ada resolves: the pin goes for both, and Bo finds the thread under Resolved.
    await adaThread.getByRole('button', { name: 'Resolve' }).click();
    await pin(ada.page, 'paying').waitFor({ state: 'detached' });
    await pin(bo.page, 'paying').waitFor({ state: 'detached', timeout: 20_000 });
    await comments(bo.page)
      .getByRole('button', { name: /^Resolved/ })
      .click();
    await threads(bo.page).first().getByRole('button', { name: 'Reopen' }).waitFor();
  }, 180_000);

  it('keeps what Bo has read: after a reload a new thread is still unread, and once read it stays read', async () => {
    await showPanel(bo.page, 'Inspector');
    await stateBox(ada.page, 'cart').click();
    await ada.page.getByRole('button', { name: 'Comment', exact: true }).click();
    await comments(ada.page).getByRole('combobox', { name: 'New comment' }).fill('And why start here?');
    await comments(ada.page).getByRole('button', { name: 'Comment', exact: true }).click();
    await pin(ada.page, 'cart').waitFor();

    const unreadOn = (page: Page) =>
      page
        .getByRole('group', { name: 'Panels' })
        .getByRole('button', { name: 'Comments', exact: true })
        .locator('[data-unread]');
    await expect.poll(() => unreadOn(bo.page).getAttribute('data-unread')).toBe('1');
    await bo.page.reload();
    await stateBox(bo.page, 'cart').waitFor({ timeout: 60_000 });
    await pin(bo.page, 'cart').waitFor();
    await expect.poll(() => unreadOn(bo.page).getAttribute('data-unread')).toBe('1');
    // Read in the panel, it stays read after another reload.
    await showPanel(bo.page, 'Comments');
    await comments(bo.page).hover();
    await unreadOn(bo.page).waitFor({ state: 'detached' });
    await bo.page.reload();
    await stateBox(bo.page, 'cart').waitFor({ timeout: 60_000 });
    await comments(bo.page).getByRole('article').first().waitFor();
    expect(await unreadOn(bo.page).count()).toBe(0);
  }, 120_000);
});

describe('a comment placed at a point of the canvas', () => {
  it('Ada places a thread where she clicks in comment mode; its pin stays on that spot as Bo zooms', async () => {
    // Nothing selected: Comment turns comment mode on.
    await ada.page.keyboard.press('Escape');
    await ada.page.locator('.canvas-stage .diagram-bg').click({ position: { x: 5, y: 5 } });
    await ada.page.locator('.canvas-stage .st.is-selected').waitFor({ state: 'detached' });
    const tool = ada.page
      .getByRole('toolbar', { name: 'Diagram tools' })
      .getByRole('button', { name: 'Comment', exact: true });
    await tool.click();
    expect(await tool.getAttribute('aria-pressed')).toBe('true');
    const cart = await stateBox(ada.page, 'cart').boundingBox();
    const placer = ada.page.getByRole('button', { name: 'Place a comment here' });
    // Below `cart`, on empty canvas.
    const at = { x: cart!.x + cart!.width / 2, y: cart!.y + cart!.height + 60 };
    const stage = (await placer.boundingBox())!;
    await placer.click({ position: { x: at.x - stage.x, y: at.y - stage.y } });
    await placer.waitFor({ state: 'detached' });
    expect(await tool.getAttribute('aria-pressed')).toBe('false');
    await comments(ada.page).getByRole('combobox', { name: 'New comment' }).fill('Room for a coupon step here?');
    await comments(ada.page).getByRole('button', { name: 'Comment', exact: true }).click();
    const adaPin = ada.page.locator('[data-comment-anchor^="point:"]');
    await adaPin.waitFor();
    // The pin's tip is where Ada clicked.
    const tip = async (l: Locator) => {
      const box = (await l.locator('.comment-pin-mark').boundingBox())!;
      return { x: box.x + box.width / 2, y: box.y + box.height };
    };
    const placed = await tip(adaPin);
    expect(Math.abs(placed.x - at.x)).toBeLessThan(6);
    expect(Math.abs(placed.y - at.y)).toBeLessThan(6);

    // Bo sees it, and zooming keeps it on the same spot of the chart (its offset from `cart` grows with the zoom).
    const boPin = bo.page.locator(`[data-comment-anchor="${await adaPin.getAttribute('data-comment-anchor')}"]`);
    await boPin.waitFor({ timeout: 20_000 });
    const offset = async () => {
      const box = (await stateBox(bo.page, 'cart').boundingBox())!;
      const p = await tip(boPin);
      return { x: p.x - box.x, y: p.y - box.y };
    };
    const before = await offset();
    await bo.page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => (await offset()).y / before.y, { timeout: 10_000 }).toBeCloseTo(1.2, 1);
    const after = await offset();
    expect(after.x / before.x).toBeCloseTo(1.2, 1);
    // Chosen, the pin opens its thread.
    await boPin.click();
    await comments(bo.page).locator('article[data-focused]').getByText('Room for a coupon step here?').waitFor();
  }, 120_000);
});

describe('a comment on a timeline entry', () => {
  it('Ada comments on an edit in the Timeline; Bo sees the thread live, named by its edit, and goes to the entry', async () => {
    await Promise.all([
      openMachinePage(app, ada.page, projectId, machineId, 'cart'),
      openMachinePage(app, bo.page, projectId, machineId, 'cart'),
    ]);
    await Promise.all([showPanel(ada.page, 'Timeline'), showPanel(bo.page, 'Comments')]);
    const timeline = (page: Page) => page.getByRole('region', { name: 'Timeline' });
    const edit = (page: Page) => timeline(page).locator('li[data-kind="edit"]').first();
    const words = (await edit(ada.page).locator('.tl-open').innerText()).replace(/^Ada /, '');

    // Ada: Comment on the machine's first edit; the Comments panel opens on a thread about it.
    await edit(ada.page).getByRole('button', { name: 'Comment', exact: true }).click();
    await comments(ada.page).getByText(`New thread on edit #1 by Ada: ${words}`).waitFor();
    await comments(ada.page).getByRole('combobox', { name: 'New comment' }).fill('Was replacing it all on purpose?');
    await comments(ada.page).getByRole('button', { name: 'Comment', exact: true }).click();
    const label = `Thread on edit #1 by Ada: ${words} by Ada`;
    await comments(ada.page).getByRole('article', { name: label }).waitFor();

    // Bo: the thread arrives live, saying what it hangs on.
    const thread = comments(bo.page).getByRole('article', { name: label });
    await thread.getByText('Was replacing it all on purpose?').waitFor({ timeout: 20_000 });
    await thread.getByText(`on edit #1 by Ada: ${words}`).waitFor();

    // Going there opens the Timeline with that entry selected (time travel on it), and its marker counts the thread.
    await thread.getByRole('button', { name: 'Show in timeline' }).click();
    const opened = timeline(bo.page).locator('li.is-open[data-kind="edit"]');
    await opened.waitFor();
    expect(await opened.locator('.tl-open').innerText()).toBe(`Ada ${words}`);
    await opened.getByRole('button', { name: '1 comment thread' }).waitFor();
    await timeline(bo.page)
      .getByRole('region', { name: /^Version \d+$/ })
      .waitFor();

    // The marker brings the thread forward in the Comments panel, for Ada too.
    await showPanel(ada.page, 'Timeline');
    await edit(ada.page).getByRole('button', { name: '1 comment thread' }).click();
    await comments(ada.page).locator('article[data-focused]').getByText('Was replacing it all on purpose?').waitFor();
  }, 120_000);
});

describe('a comment on a simulation step', () => {
  it('Ada comments on a step of her run; Bo sees it named by its run and step, and goes to that step', async () => {
    await showPanel(ada.page, 'Simulation');
    const sim = (page: Page) => page.getByRole('region', { name: 'Simulation' });
    await sim(ada.page).getByRole('button', { name: 'Simulate', exact: true }).click();
    await sim(ada.page).getByRole('button', { name: 'PAY', exact: true }).click();
    await sim(ada.page).getByRole('button', { name: 'DONE', exact: true }).click();
    const log = (page: Page) => sim(page).getByRole('list', { name: 'Simulation log' }).getByRole('listitem');
    await log(ada.page).nth(1).waitFor();

    await log(ada.page).first().getByRole('button', { name: 'Comment', exact: true }).click();
    await comments(ada.page)
      .getByText(/^New thread on step 1 of the run Ada started at .+: sent PAY$/)
      .waitFor();
    await comments(ada.page).getByRole('combobox', { name: 'New comment' }).fill('Should paying start here?');
    await comments(ada.page).getByRole('button', { name: 'Comment', exact: true }).click();
    await showPanel(ada.page, 'Simulation');
    await log(ada.page).first().getByRole('button', { name: '1 comment thread' }).waitFor();

    // Bo (the run open in his Simulation panel after a reload): the thread names the run and the step; going there scrubs to it.
    await openMachinePage(app, bo.page, projectId, machineId, 'cart');
    await showPanel(bo.page, 'Comments');
    const thread = comments(bo.page).getByRole('article').filter({ hasText: 'Should paying start here?' });
    await thread.getByText(/on step 1 of the run Ada started at \d.*: sent PAY/).waitFor({ timeout: 20_000 });
    await thread.getByRole('button', { name: 'Show this step' }).click();
    const current = sim(bo.page).getByRole('list', { name: 'Simulation log' }).locator('li.is-current');
    await current.getByText('#1 PAY').waitFor();
    await current.getByRole('button', { name: '1 comment thread' }).waitFor();
  }, 120_000);
});

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Op } from '../../src/lib/model/index.ts';
import { serveCanvasFixture } from './canvas-fixture.ts';

/**
 * A panel that threw during render on a half-arrived chart (a peer's big paste,
 * mid-batch) blanked the whole machine page. The diagram and the dock as MachineView mounts
 * them (tests/e2e/fixtures/canvas/panels.tsx), over the real open machine and layout
 * worker, with a peer's ops delivered through the live op stream.
 */
let browser: Browser;
let url: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ url, browser, close } = await serveCanvasFixture('panels.html'));
}, 120_000);

afterAll(() => close?.());

const stateBox = (page: Page, name: string) => page.getByRole('button', { name: `state ${name}`, exact: true });
/** Delivers `ops` as a peer's committed batch (as source text: the op union is too deep for evaluate's types). */
const peer = (page: Page, ops: Op[]) => page.evaluate(`window.__peer(${JSON.stringify(ops)})`);
const idOf = (page: Page, key: string) =>
  page.evaluate((k) => Object.values(window.__definition.states).find((s) => s.key === k)?.id ?? '', key);

describe('a dock panel that throws', () => {
  it('says why in its own place, leaves the diagram working, and recovers when the rest of the chart arrives', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const thrown: string[] = [];
    page.on('pageerror', (e) => thrown.push(e.message));
    await page.goto(url);
    await stateBox(page, 'cart').waitFor({ timeout: 60_000 });
    // The fixture's only panel sits in the Simulation tab, open from the start (the tab toggles).
    const tab = page.getByRole('button', { name: 'Simulation', exact: true });
    if ((await tab.getAttribute('aria-pressed')) !== 'true') await tab.click();
    const figure = page.locator('[data-xstate-states]');
    await expect(figure.textContent()).resolves.toBe('3 top-level states in XState');

    // The peer's paste, mid-batch: payment has a child, and its initial state has not arrived yet.
    const payment = await idOf(page, 'payment');
    await peer(page, [
      { type: 'state.setType', id: payment, stateType: 'compound' },
      { type: 'state.add', id: 'peer-card', parent: payment, key: 'card', stateType: 'atomic', index: null },
    ]);
    const failed = page.locator('[data-failed-part="The Simulation panel"]');
    await failed.waitFor();
    await expect(failed.getAttribute('role')).resolves.toBe('alert');
    await expect(failed.textContent()).resolves.toMatch(/The Simulation panel stopped working: .*initial/i);
    await expect(figure.count()).resolves.toBe(0);

    // The diagram carries on: it draws the peer's state, selects, and renames in place.
    await stateBox(page, 'card').waitFor();
    await stateBox(page, 'cart').click();
    await expect(stateBox(page, 'cart').getAttribute('aria-pressed')).resolves.toBe('true');
    await stateBox(page, 'cart').dblclick();
    await page.getByRole('textbox', { name: 'State name' }).fill('basket');
    await page.keyboard.press('Enter');
    await stateBox(page, 'basket').waitFor();
    // Still refused after that edit (the panel tried again and said so again).
    await expect(failed.count()).resolves.toBe(1);

    // The rest of the paste arrives: the panel is back without anyone pressing anything.
    await peer(page, [{ type: 'state.setInitial', id: payment, initial: 'peer-card' }]);
    await figure.waitFor();
    await expect(figure.textContent()).resolves.toBe('3 top-level states in XState');
    await expect(failed.count()).resolves.toBe(0);
    expect(thrown).toEqual([]);
    await page.close();
  }, 120_000);
});

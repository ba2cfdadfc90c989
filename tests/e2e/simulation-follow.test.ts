import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { pairOnMachine, type SignedUp } from './people.ts';

/**
 * Follow mode follows the presenter's simulation and replay position ("Following"),
 * two browsers through the real app and backend: B follows A on the machine page; A steps
 * back and B's panel and diagram show A's step; A returns to the live end and B does too;
 * B choosing a step itself ends follow mode, and A's next step leaves B where B is.
 * Read off the pages through the test contract: the region Simulation, `data-active`.
 */

const app = useBrowserApp({ timeout: 240_000 });
let a: SignedUp & { page: Page };
let b: SignedUp & { page: Page };
let projectId: string;
let machineId: string;

const STEPS = {
  id: 'steps',
  initial: 's0',
  states: {
    s0: { on: { NEXT: 's1' } },
    s1: { on: { NEXT: 's2' } },
    s2: { on: { NEXT: 's3' } },
    s3: { on: { NEXT: 's4' } },
    s4: {},
  },
};

const panel = (page: Page) => page.getByRole('region', { name: 'Simulation' });
const button = (page: Page, name: string) => panel(page).getByRole('button', { name, exact: true });
/** The one state shown active (the chart is flat). */
const activeState = (page: Page) =>
  page.locator('[data-active="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-state-path')));
const stepShown = (page: Page) =>
  panel(page)
    .getByText(/step \d+ of \d+/)
    .textContent();

/** Both pages show step `step` of `of` with `state` active (the other's presence is live; wait for the fact). */
async function showing(page: Page, step: number, of: number, state: string) {
  await expect.poll(() => activeState(page), { timeout: 20_000 }).toEqual([state]);
  await expect.poll(() => stepShown(page), { timeout: 20_000 }).toMatch(new RegExp(`step ${step} of ${of}\\b`));
}

async function open(page: Page) {
  await page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
  await page.getByRole('button', { name: 'state s0', exact: true }).waitFor({ timeout: 60_000 });
  await showPanel(page, 'Simulation');
}

beforeAll(async () => {
  const pair = await pairOnMachine(app, 'simfollow', ['Ada', 'Bo'], 'Follow room', { name: 'Steps', config: STEPS });
  ({ first: a, second: b, projectId, machineId } = pair);
}, 240_000);

describe('following the presenter’s replay position', () => {
  it('B follows A’s steps back and to the live end, until B chooses a step itself', async () => {
    await Promise.all([open(a.page), open(b.page)]);
    await button(a.page, 'Simulate').click();
    for (let i = 1; i <= 4; i += 1) {
      await button(a.page, 'NEXT').click();
      await showing(a.page, i, i, `s${i}`);
    }
    await showing(b.page, 4, 4, 's4');

    await b.page.getByRole('button', { name: 'Follow Ada' }).click();
    await b.page.getByText('Following Ada').waitFor();

    // A steps back to #3, then to #1: B's panel and diagram show A's step.
    await button(a.page, 'Step back').click();
    await showing(a.page, 3, 4, 's3');
    await showing(b.page, 3, 4, 's3');
    await button(a.page, 'Step back').click();
    await button(a.page, 'Step back').click();
    await showing(a.page, 1, 4, 's1');
    await showing(b.page, 1, 4, 's1');

    // A returns to the live end: so does B.
    await a.page.getByRole('slider', { name: 'Replay position' }).fill('4');
    await showing(a.page, 4, 4, 's4');
    await showing(b.page, 4, 4, 's4');
    expect(await panel(b.page).getByText('(replaying)').count()).toBe(0);

    // A steps back again; B follows, then steps back itself: follow mode ends.
    await button(a.page, 'Step back').click();
    await showing(b.page, 3, 4, 's3');
    await button(b.page, 'Step back').click();
    await b.page.getByText('Following Ada').waitFor({ state: 'detached' });
    await showing(b.page, 2, 4, 's2');
    expect(await b.page.getByRole('button', { name: 'Follow Ada' }).getAttribute('aria-pressed')).toBe('false');

    // A moves on; B stays where B chose (the machine tests pin that a step of one's own ends following).
    await button(a.page, 'Step back').click();
    await showing(a.page, 2, 4, 's2');
    await button(a.page, 'Step back').click();
    await showing(a.page, 1, 4, 's1');
    // Following again shows A's step at once.
    await showing(b.page, 2, 4, 's2');
    await b.page.getByRole('button', { name: 'Follow Ada' }).click();
    await showing(b.page, 1, 4, 's1');
  }, 240_000);
});

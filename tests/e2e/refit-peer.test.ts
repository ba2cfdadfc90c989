import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { insertMachine, signUpPerson, type SignedUp } from './people.ts';

/**
 * Big charts at a peer: when A pastes a large config over a small machine, B's
 * view used to stay at the old zoom with the chart mostly off-screen. The rule (as in
 * Figma): a view B has not moved since it was fitted is fitted again when the chart's
 * extent changes a lot; a view B moved is B's, and stays exactly where B put it.
 */

const app = useBrowserApp({ timeout: 180_000 });

const SMALL = { id: 'small', initial: 'a', states: { a: { on: { GO: 'b' } }, b: { on: { BACK: 'a' } }, c: {} } };

/** A flat chain of 40 states, each with a transition to the next: many times wider than SMALL. */
function bigConfig(): unknown {
  const states: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) states[`step${i}`] = i < 39 ? { on: { NEXT: `step${i + 1}` } } : { type: 'final' };
  return { id: 'big', initial: 'step0', states };
}

let a: SignedUp;
let b: SignedUp;
let projectId: string;

beforeAll(async () => {
  [a, b] = await Promise.all([signUpPerson('refit', 'Ada'), signUpPerson('refit', 'Bo')]);
  const project = await a.client.from('projects').insert({ name: 'Refit' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  projectId = project.data.id;
  const added = await a.client
    .from('project_members')
    .insert({ project_id: projectId, user_id: b.id, role: 'editor', joined_via: 'added' });
  if (added.error) throw new Error(added.error.message);
}, 60_000);

async function openAs(person: SignedUp, machineId: string): Promise<Page> {
  const { page } = await app.signIn(person.email, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
  await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
  await page.locator('.st').first().waitFor({ timeout: 60_000 });
  await page.locator('.canvas-stage[data-layout="ready"]').waitFor({ timeout: 60_000 });
  return page;
}

/** The diagram's pan and zoom, as drawn. */
const viewportOf = (page: Page): Promise<string | null> =>
  page.locator('.diagram-svg g.viewport').getAttribute('transform');

/** Waits until the page draws `count` states and no layout is under way. */
async function drawn(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) =>
      document.querySelectorAll('.st').length === n &&
      document.querySelector('.canvas-stage')?.getAttribute('data-layout') === 'ready',
    count,
    { timeout: 90_000 },
  );
}

/** States whose box lies (partly) outside the diagram pane. */
function outsidePane(page: Page): Promise<number> {
  return page.evaluate(() => {
    const pane = document.querySelector('.canvas-stage')?.getBoundingClientRect();
    if (!pane) return -1;
    return Array.from(document.querySelectorAll('.st > .st-box'))
      .map((el) => el.getBoundingClientRect())
      .filter(
        (r) =>
          r.left < pane.left - 0.5 ||
          r.right > pane.right + 0.5 ||
          r.top < pane.top - 0.5 ||
          r.bottom > pane.bottom + 0.5,
      ).length;
  });
}

/** A replaces the whole config through the Code panel, as a paste would. */
async function paste(page: Page, config: unknown): Promise<void> {
  await showPanel(page, 'Code');
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(JSON.stringify(config, null, 2));
  await page.getByRole('button', { name: 'Apply' }).click();
}

// 40 chain states and the machine's root.
const BIG_STATES = 41;

describe("a peer's big paste", () => {
  it('fits the view again at B when B has not moved it', async () => {
    const machineId = await insertMachine(a.client, projectId, 'Untouched', SMALL);
    const pageB = await openAs(b, machineId);
    const before = await viewportOf(pageB);
    expect(await outsidePane(pageB)).toBe(0);
    const pageA = await openAs(a, machineId);
    await paste(pageA, bigConfig());
    await drawn(pageB, BIG_STATES);
    // B's view changed by itself, and frames the whole new chart.
    expect(await viewportOf(pageB)).not.toBe(before);
    expect(await outsidePane(pageB)).toBe(0);
  }, 180_000);

  it('keeps the view B moved, exactly', async () => {
    const machineId = await insertMachine(a.client, projectId, 'Moved', SMALL);
    const pageB = await openAs(b, machineId);
    const fitted = await viewportOf(pageB);
    // B zooms out once: from now on the view is B's.
    await pageB.getByRole('button', { name: 'Zoom out' }).click();
    await pageB.waitForFunction(
      (t) => document.querySelector('.diagram-svg g.viewport')?.getAttribute('transform') !== t,
      fitted,
    );
    const chosen = await viewportOf(pageB);
    const pageA = await openAs(a, machineId);
    await paste(pageA, bigConfig());
    await drawn(pageB, BIG_STATES);
    expect(await viewportOf(pageB)).toBe(chosen);
    // Most of the new chart is off B's screen, as B chose; Fit brings it all back.
    expect(await outsidePane(pageB)).toBeGreaterThan(0);
    await pageB.getByRole('button', { name: 'Zoom to fit' }).click();
    await pageB.waitForFunction(
      (t) => document.querySelector('.diagram-svg g.viewport')?.getAttribute('transform') !== t,
      chosen,
    );
    expect(await outsidePane(pageB)).toBe(0);
  }, 180_000);
});

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importXState } from '../../src/lib/model/import.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { exportFolders, testCounts, vitest } from '../setup/exported-vitest.ts';
import { downloaded, showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage } from './machine-page.ts';
import { createProject, insertDefinition, signUpAccount } from './people.ts';

/**
 * The Tests region in two browsers ("Done when"), through the real app and
 * backend, as one sequence: A generates paths and plays one, and B sees it played (with
 * who plays it) until B stops watching; A saves a path and a simulation as tests; B (a
 * viewer) runs the simulation's test and both see it pass; A deletes the transition the
 * test needs and, run again, both see it fail at step 2 in words; coverage marks the
 * untested transition on the diagram; Export tests downloads a Vitest file that Vitest
 * runs red on the broken machine and green after Undo. Read off the pages through the
 * test contract: the region Tests, its buttons, one list item per path or test, the
 * Coverage switch, `data-state-path`, `data-transition-id`, `data-played`, `data-covered`.
 */

const app = useBrowserApp({ timeout: 240_000 });
let a: Page;
let b: Page;
let projectId: string;
let machineId: string;
let definition: MachineDefinition;
let adaId: string;
const { folderWith, cleanUp } = exportFolders();

const LAMP = {
  id: 'lamp',
  initial: 'off',
  states: {
    off: { on: { TOGGLE: 'on' } },
    on: { on: { TOGGLE: 'off', BREAK: 'broken' } },
    broken: {},
  },
};

const person = (tag: string) => signUpAccount(`tests-${tag}`);

const signIn = (email: string) => app.signIn(email, { viewport: { width: 1400, height: 1000 } });
const panel = (page: Page): Locator => page.getByRole('region', { name: 'Tests' });
const saved = (page: Page) => panel(page).getByRole('list', { name: 'Saved tests' }).getByRole('listitem');

async function open(page: Page) {
  await openMachinePage(app, page, projectId, machineId, 'off');
  await showPanel(page, 'Tests');
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([person('ada'), person('bo')]);
  projectId = await createProject(pa.client, 'Tests room', [{ id: pb.id, role: 'viewer' }]);
  adaId = pa.id;
  definition = importXState(LAMP, { name: 'Lamp' });
  machineId = await insertDefinition(pa.client, projectId, 'Lamp', definition);
  const [sa, sb] = await Promise.all([signIn(pa.email), signIn(pb.email)]);
  a = sa.page;
  b = sb.page;
}, 240_000);

afterAll(cleanUp);

const played = (page: Page) =>
  page.locator('[data-played="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-state-path')).sort());

/** The id of the transition from the state `from` on `event`, in the definition the test inserted. */
function transitionId(from: string, event: string): string {
  const source = Object.values(definition.states).find((s) => s.key === from)?.id;
  const t = Object.values(definition.transitions).find((x) => x.source === source && x.event === event);
  if (!t) throw new Error(`no ${event} from ${from}`);
  return t.id;
}

/** Export tests on `page`: the downloaded file, run by Vitest in a folder of its own. */
async function exportAndRun(page: Page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel(page).getByRole('button', { name: 'Export tests', exact: true }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('Lamp.test.ts');
  const text = (await downloaded(download)).toString('utf8');
  expect(text).toContain('createActor');
  const run = await vitest(await folderWith({ 'Lamp.test.ts': text }));
  return { ...run, counts: testCounts(run.output) };
}

describe('the Tests region, two browsers', () => {
  it('plays for the room, saves from a simulation, runs, breaks, covers and exports', async () => {
    await Promise.all([open(a), open(b)]);

    // A generates paths (shortest to every state: off, on, broken) and plays one.
    await panel(a).getByRole('button', { name: 'Generate paths', exact: true }).click();
    const paths = panel(a).getByRole('list', { name: 'Generated paths' }).getByRole('listitem');
    await expect.poll(() => paths.count()).toBe(3);
    const toOn = paths.filter({ hasText: 'TOGGLE' }).filter({ hasNotText: 'BREAK' });
    await expect.poll(() => toOn.count()).toBe(1);
    await toOn.getByRole('button', { name: 'Play', exact: true }).click();
    await a.locator('[data-state-path="off"][data-played="true"]').waitFor();

    // B sees it played on B's diagram, step by step, and who plays it.
    const watching = panel(b).getByRole('group', { name: 'Played for the room' });
    await watching.waitFor();
    expect(await watching.getAttribute('data-player')).toBe(adaId);
    expect(await watching.textContent()).toContain('is playing');
    expect(await watching.textContent()).toContain('start in off → TOGGLE → on');
    await b.locator('[data-state-path="off"][data-played="true"]').waitFor();
    await panel(a)
      .getByRole('button', { name: /Step forward/ })
      .click();
    await a.locator('[data-state-path="on"][data-played="true"]').waitFor();
    await b.locator('[data-state-path="on"][data-played="true"]').waitFor();
    expect(await played(b)).toEqual(['on']);
    await watching.getByRole('status').filter({ hasText: 'Step 1 of 1: on' }).waitFor();

    // B stops watching: B's diagram clears while A still plays.
    await watching.getByRole('button', { name: 'Stop watching', exact: true }).click();
    await expect.poll(() => played(b)).toEqual([]);
    expect(await played(a)).toEqual(['on']);
    await expect(watching.count()).resolves.toBe(0);

    // A saves the path as a test and stops playing.
    await toOn.getByRole('button', { name: 'Save test', exact: true }).click();
    await expect.poll(() => saved(b).count()).toBe(1);
    await toOn.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(() => played(a)).toEqual([]);

    // A simulates TOGGLE then BREAK, and saves the simulation as a test.
    await showPanel(a, 'Simulation');
    const sim = a.getByRole('region', { name: 'Simulation' });
    await sim.getByRole('button', { name: 'Simulate', exact: true }).click();
    await sim.getByRole('button', { name: 'TOGGLE', exact: true }).click();
    await a.locator('[data-state-path="on"][data-active="true"]').waitFor();
    await sim.getByRole('button', { name: 'BREAK', exact: true }).click();
    await a.locator('[data-state-path="broken"][data-active="true"]').waitFor();
    await showPanel(a, 'Tests');
    const saveSim = panel(a).getByRole('button', { name: 'Save simulation as test', exact: true });
    await expect.poll(() => saveSim.isEnabled()).toBe(true);
    await saveSim.click();
    const simTest = (page: Page) => saved(page).filter({ hasText: 'Simulation: start in off' });
    await expect.poll(() => simTest(b).count()).toBe(1);
    expect(await simTest(b).locator('.tests-words').textContent()).toBe(
      'Simulation: start in off → TOGGLE → on → BREAK → broken',
    );

    // B (a viewer) runs it, and both see it pass.
    await simTest(b).getByRole('button', { name: 'Run', exact: true }).click();
    for (const page of [a, b]) await simTest(page).locator('[data-result="pass"]').waitFor();

    // A deletes BREAK: the machine no longer breaks.
    await a.getByRole('button', { name: 'transition BREAK' }).locator('.tr-label').click();
    await a.keyboard.press('Delete');
    await expect.poll(() => b.getByRole('button', { name: 'transition BREAK' }).count()).toBe(0);
    // The test is stale for both; run again, both see it fail at step 2, in words.
    for (const page of [a, b]) await simTest(page).locator('.tests-stale').waitFor();
    await simTest(b).getByRole('button', { name: 'Run', exact: true }).click();
    for (const page of [a, b]) {
      const badge = simTest(page).locator('[data-result="fail"]');
      await badge.waitFor();
      expect(await badge.textContent()).toBe('Fail at step 2');
      expect(await simTest(page).locator('.tests-message').textContent()).toBe(
        'step 2: after BREAK did nothing, in on, expected broken',
      );
    }

    // Coverage: the TOGGLE from off is tested, the TOGGLE back from on is not (on the diagram).
    await panel(b).getByRole('switch', { name: 'Coverage' }).check();
    const toggleBack = b.locator(`[data-transition-id="${transitionId('on', 'TOGGLE')}"]`);
    await b.locator(`[data-transition-id="${transitionId('off', 'TOGGLE')}"][data-covered="true"]`).waitFor();
    expect(await toggleBack.getAttribute('data-covered')).toBe('false');
    expect(await b.locator('[data-state-path="broken"]').getAttribute('data-covered')).toBe('false');
    expect(await b.locator('[data-state-path="on"]').getAttribute('data-covered')).toBe('true');
    // Two of three states; one of the two transitions left after BREAK's delete.
    expect(await panel(b).locator('[data-figure="states"]').textContent()).toBe('66.7%');
    expect(await panel(b).locator('[data-figure="transitions"]').textContent()).toBe('50%');
    expect(await panel(b).locator('[data-untested]').textContent()).toBe('broken');
    // What it counted (the simulation joins when the list is next read), and the untaken transition in words.
    expect(await panel(b).locator('[data-sources]').textContent()).toMatch(/^from (1 simulation and )?2 test runs$/);
    const untested = panel(b).getByRole('list', { name: 'Untested transitions' }).getByRole('listitem');
    expect(await untested.allTextContents()).toEqual(['TOGGLE: on → off']);
    // A, switching coverage on, sees the same; switched off, the marks go.
    await panel(a).getByRole('switch', { name: 'Coverage' }).check();
    await a.locator('[data-state-path="on"][data-covered="true"]').waitFor();
    expect(await panel(a).locator('[data-figure="transitions"]').textContent()).toBe('50%');
    await panel(a).getByRole('switch', { name: 'Coverage' }).uncheck();
    await panel(b).getByRole('switch', { name: 'Coverage' }).uncheck();
    await expect.poll(() => b.locator('[data-covered]').count()).toBe(0);

    // Export on the broken machine: the simulation's test fails under Vitest, the path's passes.
    const red = await exportAndRun(a);
    expect(red.code).not.toBe(0);
    expect(red.counts).toEqual({ passed: 1, failed: 1, total: 2 });
    expect(red.output).toContain('after step 2');

    // Undo brings BREAK back; the export runs green.
    await a.getByRole('button', { name: 'Undo', exact: true }).click();
    await b.getByRole('button', { name: 'transition BREAK' }).waitFor();
    const green = await exportAndRun(a);
    expect(green.counts).toEqual({ passed: 2, failed: 0, total: 2 });
    expect(green.code).toBe(0);
  }, 240_000);
});

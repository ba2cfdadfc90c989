import { describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { insertMachine, signUpPerson } from './people.ts';

/**
 * The Tests region's generation in the browser ("Off the main thread" and "Too
 * many paths"): paths are generated in a Web Worker, and a chart with more simple paths
 * to a state than the limit stops with the message in words, then still generates
 * what fits (the shortest paths) after the message is dismissed.
 */

const app = useBrowserApp({ timeout: 240_000 });

/** Eight states, each with an event to every other: 1,957 simple paths from s0 to s7. */
function everyWay(): unknown {
  const keys = Array.from({ length: 8 }, (_, i) => `s${i}`);
  const states: Record<string, unknown> = {};
  for (const k of keys) states[k] = { on: Object.fromEntries(keys.filter((o) => o !== k).map((o) => [`TO_${o}`, o])) };
  return { id: 'mesh', initial: 's0', states };
}

describe('generating paths in the browser', () => {
  it('runs in a worker and stops past the path limit with a clear message', async () => {
    const ada = await signUpPerson('tests-limit', 'Ada');
    const project = await ada.client.from('projects').insert({ name: 'Path limit' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const machineId = await insertMachine(ada.client, project.data.id, 'Mesh', everyWay());
    const { page } = await app.signIn(ada.email, { viewport: { width: 1400, height: 1000 } });
    await page.goto(`${app.url}/p/${project.data.id}/m/${machineId}`);
    await page.getByRole('button', { name: 'state s0', exact: true }).waitFor({ timeout: 60_000 });
    await showPanel(page, 'Tests');
    const panel = page.getByRole('region', { name: 'Tests' });

    const isPaths = (w: { url(): string }) => w.url().includes('paths.worker');
    expect(page.workers().filter(isPaths)).toHaveLength(0);
    const worker = page.waitForEvent('worker', { predicate: isPaths, timeout: 30_000 });
    await panel.getByRole('combobox', { name: 'Kind of paths' }).selectOption('simple');
    await panel.getByRole('combobox', { name: 'Target state' }).selectOption('s7');
    await panel.getByRole('button', { name: 'Generate paths', exact: true }).click();
    // The generation ran in a Web Worker of its own.
    await worker;
    const alert = panel.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('more than 500 paths; choose a target state or a depth');
    const generated = panel.getByRole('list', { name: 'Generated paths' }).getByRole('listitem');
    expect(await generated.count()).toBe(0);

    // The tab is not hung: after dismissing, the shortest paths (one per state) come.
    await alert.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await panel.getByRole('combobox', { name: 'Kind of paths' }).selectOption('shortest');
    await panel.getByRole('button', { name: 'Generate paths', exact: true }).click();
    await expect.poll(() => generated.count(), { timeout: 30_000 }).toBe(8);
    expect(await panel.getByRole('alert').count()).toBe(0);
  }, 240_000);
});

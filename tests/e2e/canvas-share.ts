import type { SupabaseClient } from '@supabase/supabase-js';
import type { Page } from 'playwright-core';
import type { Json } from '../../src/adapters/supabase/database.types.ts';
import { loadExample } from '../../src/features/canvas/examples.ts';

/**
 * The share of the window that shows the diagram: the window sampled on an 8 px grid, each
 * point counted when what a click there would hit lies in the region named "Diagram" (so a
 * bar, a side panel or a bottom sheet over the diagram does not count). Sent as source text
 * so the bench (run by tsx, whose name-keeping helper is not in the page) can use it too.
 */
const SHARE = `(() => {
  const region = document.querySelector('[role="region"][aria-label="Diagram"]');
  if (!region) return 0;
  const step = 8;
  let hit = 0;
  let all = 0;
  for (let y = step / 2; y < window.innerHeight; y += step)
    for (let x = step / 2; x < window.innerWidth; x += step) {
      all += 1;
      const el = document.elementFromPoint(x, y);
      if (el && region.contains(el)) hit += 1;
    }
  return all === 0 ? 0 : hit / all;
})()`;

export const diagramShare = (page: Page): Promise<number> => page.evaluate<number>(SHARE);

/** The states a share is measured in, in order; each leaves the page ready for the next. */
export const SHARE_STATES = [
  'all closed',
  'Code open',
  'Inspector open',
  'Simulation open',
  'Tests open',
  'Timeline open',
  'simulating (Simulation open)',
  'simulating (all closed)',
] as const;
export type ShareState = (typeof SHARE_STATES)[number];

/** The tab named `name` in the side panel's strip. */
const tab = (page: Page, name: string) =>
  page.getByRole('group', { name: 'Panels' }).getByRole('button', { name, exact: true });

async function open(page: Page, name: string): Promise<void> {
  if ((await tab(page, name).getAttribute('aria-pressed')) !== 'true') await tab(page, name).click();
  await page.getByRole('region', { name, exact: true }).waitFor();
}

async function closeAll(page: Page): Promise<void> {
  const pressed = page.getByRole('group', { name: 'Panels' }).locator('button[aria-pressed="true"]');
  if ((await pressed.count()) > 0) await pressed.first().click();
  await page.locator('.machine-dock[data-open="none"]').waitFor();
}

/** Puts the machine page (open, synced, drawn) in `state`: the simulating states start a run if none is going. */
export async function enterShareState(page: Page, state: ShareState): Promise<void> {
  if (state === 'all closed' || state === 'simulating (all closed)') return closeAll(page);
  if (state.startsWith('simulating')) {
    await open(page, 'Simulation');
    const simulate = page
      .getByRole('region', { name: 'Simulation' })
      .getByRole('button', { name: 'Simulate', exact: true });
    if ((await simulate.count()) > 0) await simulate.click();
    await page.getByRole('button', { name: 'Step back' }).waitFor();
    return;
  }
  await open(page, state.replace(' open', ''));
}

/** A new project of the signed-in `client` holding the bundled `connection` example: the chart the shares are measured on. */
export async function connectionMachine(
  client: SupabaseClient,
  projectName: string,
): Promise<{ projectId: string; machineId: string }> {
  const project = await client.from('projects').insert({ name: projectName }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  const machine = await client
    .from('machines')
    .insert({
      project_id: project.data.id,
      name: 'connection',
      definition: loadExample('connection') as unknown as Json,
    })
    .select('id')
    .single();
  if (machine.error) throw new Error(machine.error.message);
  return { projectId: project.data.id as string, machineId: machine.data.id as string };
}

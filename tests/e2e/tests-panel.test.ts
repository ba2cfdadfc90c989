import type { SupabaseClient } from '@supabase/supabase-js';
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database, Json } from '../../src/adapters/supabase/database.types.ts';
import { importXState } from '../../src/lib/model/import.ts';
import { anonClient, uniqueEmail } from '../setup/clients.ts';
import { PASSWORD, showPanel, useBrowserApp } from './harness.ts';

/**
 * The Tests region in two browsers (issue 12), through the real app and backend: A
 * generates paths and saves one as a test, B (a viewer) sees it and runs it, and both
 * see it pass; coverage marks the states on the diagram and names the untested one;
 * Export tests downloads a Vitest file. Read off the pages through the test contract:
 * the region Tests, its buttons, one list item per path or test, the Coverage switch,
 * `data-state-path` and `data-covered`.
 */

type Client = SupabaseClient<Database>;

const app = useBrowserApp({ timeout: 240_000 });
let a: Page;
let b: Page;
let projectId: string;
let machineId: string;

const LAMP = {
  id: 'lamp',
  initial: 'off',
  states: {
    off: { on: { TOGGLE: 'on' } },
    on: { on: { TOGGLE: 'off', BREAK: 'broken' } },
    broken: {},
  },
};

async function person(tag: string) {
  const client = anonClient() as unknown as Client;
  const email = uniqueEmail(`tests-${tag}`);
  const { data, error } = await client.auth.signUp({ email, password: PASSWORD });
  if (error || !data.user) throw error ?? new Error('no user');
  return { id: data.user.id, client, email };
}

const signIn = (email: string) => app.signIn(email, { viewport: { width: 1400, height: 1000 } });
const panel = (page: Page): Locator => page.getByRole('region', { name: 'Tests' });
const saved = (page: Page) => panel(page).getByRole('list', { name: 'Saved tests' }).getByRole('listitem');

async function open(page: Page) {
  await page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
  await page.getByRole('button', { name: 'state off', exact: true }).waitFor({ timeout: 60_000 });
  await showPanel(page, 'Tests');
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([person('ada'), person('bo')]);
  const project = await pa.client.from('projects').insert({ name: 'Tests room' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  projectId = project.data.id;
  const added = await pa.client
    .from('project_members')
    .insert({ project_id: projectId, user_id: pb.id, role: 'viewer', joined_via: 'added' });
  if (added.error) throw new Error(added.error.message);
  const definition = importXState(LAMP, { name: 'Lamp' });
  const machine = await pa.client
    .from('machines')
    .insert({ project_id: projectId, name: 'Lamp', definition: definition as unknown as Json })
    .select('id')
    .single();
  if (machine.error) throw new Error(machine.error.message);
  machineId = machine.data.id;
  const [sa, sb] = await Promise.all([signIn(pa.email), signIn(pb.email)]);
  a = sa.page;
  b = sb.page;
}, 240_000);

describe('the Tests region, two browsers', () => {
  it('A generates paths and saves one; B (a viewer) sees it, runs it, and both see it pass', async () => {
    await Promise.all([open(a), open(b)]);
    await panel(a).getByRole('button', { name: 'Generate paths', exact: true }).click();
    const paths = panel(a).getByRole('list', { name: 'Generated paths' }).getByRole('listitem');
    // Shortest paths to every state: off, on, broken.
    await expect.poll(() => paths.count()).toBe(3);
    const toOn = paths.filter({ hasText: 'TOGGLE' }).filter({ hasNotText: 'BREAK' });
    await expect.poll(() => toOn.count()).toBe(1);

    // Playing the path shows its states on the diagram, step by step.
    await toOn.getByRole('button', { name: 'Play', exact: true }).click();
    await a.locator('[data-state-path="off"][data-played="true"]').waitFor();
    await panel(a)
      .getByRole('button', { name: /Step forward/ })
      .click();
    await a.locator('[data-state-path="on"][data-played="true"]').waitFor();

    await toOn.getByRole('button', { name: 'Save test', exact: true }).click();
    await expect.poll(() => saved(b).count()).toBe(1);
    await saved(b).getByRole('button', { name: 'Run', exact: true }).click();
    for (const page of [a, b]) await saved(page).locator('[data-result="pass"]').waitFor();
  });

  it('coverage marks covered and untested states on the diagram and in figures', async () => {
    await panel(b).getByRole('switch', { name: 'Coverage' }).check();
    await b.locator('[data-state-path="on"][data-covered="true"]').waitFor();
    expect(await b.locator('[data-state-path="broken"]').getAttribute('data-covered')).toBe('false');
    expect(await b.locator('[data-state-path="off"]').getAttribute('data-covered')).toBe('true');
    const states = panel(b).locator('[data-figure="states"]');
    // Two of three states, one of three transitions.
    expect(await states.textContent()).toBe('66.7%');
    expect(await panel(b).locator('[data-figure="transitions"]').textContent()).toBe('33.3%');
    expect(await panel(b).locator('[data-untested]').textContent()).toBe('broken');
    // What it counted, and the untaken transitions in words; A, switching coverage on, sees the same.
    expect(await panel(b).locator('[data-sources]').textContent()).toBe('from 1 test run');
    const untested = panel(b).getByRole('list', { name: 'Untested transitions' }).getByRole('listitem');
    expect((await untested.allTextContents()).sort()).toEqual(['BREAK: on → broken', 'TOGGLE: on → off']);
    await panel(a).getByRole('switch', { name: 'Coverage' }).check();
    await a.locator('[data-state-path="on"][data-covered="true"]').waitFor();
    expect(await panel(a).locator('[data-figure="transitions"]').textContent()).toBe('33.3%');
    await panel(a).getByRole('switch', { name: 'Coverage' }).uncheck();
    // Switched off, the marks go.
    await panel(b).getByRole('switch', { name: 'Coverage' }).uncheck();
    await expect.poll(() => b.locator('[data-covered]').count()).toBe(0);
  });

  it('Export tests downloads a Vitest file over the machine', async () => {
    const [download] = await Promise.all([
      a.waitForEvent('download'),
      panel(a).getByRole('button', { name: 'Export tests', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Lamp.test.ts');
    const file = await download.path();
    const text = await readFile(file, 'utf8');
    expect(text).toContain('createActor');
    expect(text).toContain('"TOGGLE"');
  });
});

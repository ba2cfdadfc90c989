import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { activePaths, activeState, openMachinePage, simulationPanel } from './machine-page.ts';
import { createProject, insertMachine, signUpAccount, type Client } from './people.ts';

/**
 * Shared simulation in several browsers ("Done when"), through the real app
 * and backend: A starts a simulation and sends events and B sees every active state
 * change; B, a viewer, sends; Advance time fires an `after` transition; parallel
 * regions highlight together; C joins late and a reload lands on the same state;
 * replay steps back; a history state brings back the child it left. Read off the pages through the test contract: the region
 * Simulation, event buttons named by type, `data-state-path` and `data-active`.
 */

interface Person {
  id: string;
  client: Client;
  email: string;
  context?: BrowserContext;
  page?: Page;
}

const app = useBrowserApp({ timeout: 240_000 });
let a: Person & { page: Page };
let b: Person & { page: Page };
let c: Person;
let projectId: string;
let machineId: string;

const DOOR = {
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'opening' } },
    opening: { after: { 1000: 'open' } },
    open: {
      type: 'parallel',
      on: { CLOSE: 'closed' },
      states: {
        light: { initial: 'on', states: { on: { on: { DIM: 'off' } }, off: {} } },
        alarm: {
          initial: 'armed',
          states: { armed: { on: { DISARM: { target: 'disarmed', guard: 'hasCode' } } }, disarmed: {} },
        },
      },
    },
  },
};

const person = (tag: string): Promise<Person> => signUpAccount(`sim-${tag}`);

const signIn = (email: string) => app.signIn(email, { viewport: { width: 1400, height: 1000 } });
const panel = simulationPanel;
const eventButton = (page: Page, type: string) => panel(page).getByRole('button', { name: type, exact: true });
const active = activeState;

async function open(page: Page) {
  await openMachinePage(app, page, projectId, machineId, 'closed');
  await showPanel(page, 'Simulation');
}

beforeAll(async () => {
  const [pa, pb, pc] = await Promise.all([person('ada'), person('bo'), person('cy')]);
  projectId = await createProject(pa.client, 'Simulation room', [
    { id: pb.id, role: 'viewer' },
    { id: pc.id, role: 'editor' },
  ]);
  machineId = await insertMachine(pa.client, projectId, 'Door', DOOR);
  const [sa, sb] = await Promise.all([signIn(pa.email), signIn(pb.email)]);
  a = { ...pa, ...sa };
  b = { ...pb, ...sb };
  c = pc;
}, 240_000);

describe('shared simulation, several browsers', () => {
  it('A starts and sends, B (a viewer) sees every change and sends too; Advance time fires an after transition', async () => {
    await Promise.all([open(a.page), open(b.page)]);
    await panel(a.page).getByRole('button', { name: 'Simulate', exact: true }).click();
    await active(a.page, 'closed').waitFor();
    await active(b.page, 'closed').waitFor();

    // Enabled now vs not: OPEN is, DIM is not.
    expect(await eventButton(a.page, 'OPEN').isEnabled()).toBe(true);
    expect(await eventButton(a.page, 'DIM').isDisabled()).toBe(true);

    await eventButton(a.page, 'OPEN').click();
    await active(b.page, 'opening').waitFor();
    await panel(b.page).getByRole('button', { name: 'Advance time', exact: true }).click();
    for (const page of [a.page, b.page]) {
      await active(page, 'open.light.on').waitFor();
      expect(await activePaths(page)).toEqual([
        'open',
        'open.alarm',
        'open.alarm.armed',
        'open.light',
        'open.light.on',
      ]);
    }

    await eventButton(b.page, 'DIM').click();
    await active(a.page, 'open.light.off').waitFor();
    // A guard is a switch: off, DISARM is not enabled; on, it is and it is taken.
    await panel(a.page).getByRole('switch', { name: 'hasCode' }).check();
    await eventButton(a.page, 'DISARM').click();
    await active(b.page, 'open.alarm.disarmed').waitFor();
    await expect.poll(() => panel(b.page).getByRole('listitem').filter({ hasText: '#3 DIM' }).count()).toBe(1);
  });

  it('C joins late and lands on the same state, and so does a reload', async () => {
    const late = await signIn(c.email);
    await open(late.page);
    await active(late.page, 'open.alarm.disarmed').waitFor();
    expect(await activePaths(late.page)).toEqual(await activePaths(a.page));
    await b.page.reload();
    await active(b.page, 'open.alarm.disarmed').waitFor();
    expect(await activePaths(b.page)).toEqual(await activePaths(a.page));
  });

  it('replays: Step back shows the previous step on the diagram; Fork from here starts a new simulation for everyone', async () => {
    await panel(a.page).getByRole('button', { name: 'Step back', exact: true }).click();
    await active(a.page, 'open.alarm.armed').waitFor();
    expect(await activePaths(a.page)).toEqual([
      'open',
      'open.alarm',
      'open.alarm.armed',
      'open.light',
      'open.light.off',
    ]);
    await panel(a.page).getByRole('button', { name: 'Fork from here', exact: true }).click();
    // The fork holds the three events up to the step shown (the old simulation had four, so
    // B's log can only read so once B follows the new simulation), and B shows its state.
    await expect
      .poll(() => panel(b.page).getByRole('listitem').filter({ hasText: /^#\d/ }).allTextContents())
      .toEqual([
        expect.stringContaining('#1 OPEN'),
        expect.stringContaining('#2 Advance time'),
        expect.stringContaining('#3 DIM'),
      ]);
    await active(b.page, 'open.alarm.armed').waitFor();
    expect(await activePaths(b.page)).toEqual(await activePaths(a.page));
    await eventButton(b.page, 'CLOSE').click();
    await active(a.page, 'closed').waitFor();
  });
});

describe('an edit during a run', () => {
  it('shows the changed-definition notice and re-runs the same events on the new version', async () => {
    await active(a.page, 'closed').waitFor();
    await a.page.getByRole('button', { name: 'state closed', exact: true }).dblclick();
    const input = a.page.getByRole('textbox', { name: 'State name' });
    await input.fill('shut');
    await input.press('Enter');
    await a.page.locator('[data-sync="synced"]').waitFor();
    await panel(b.page).getByText('The machine changed since this simulation started.').waitFor();
    await panel(a.page).getByRole('button', { name: 'Re-run on this version', exact: true }).click();
    // The fork's four events on the new version end in the renamed state, for everyone.
    await active(b.page, 'shut').waitFor();
    await active(a.page, 'shut').waitFor();
    expect(await panel(a.page).getByText('The machine changed since this simulation started.').count()).toBe(0);
  });
});

describe('a guest', () => {
  it("watches a public project's simulation without send buttons", async () => {
    const open = await a.client
      .from('projects')
      .insert({ name: 'Open door', visibility: 'public' })
      .select('id')
      .single();
    if (open.error) throw new Error(open.error.message);
    const link = await a.client
      .rpc('owned_share_tokens', { p_project: open.data.id })
      .single<{ share_token: string }>();
    if (link.error) throw new Error(link.error.message);
    const doorId = await insertMachine(a.client, open.data.id, 'Public door', DOOR);
    // The content is op 1 of the log: trusted code checkpoints it before a simulation pins it (as the app's adapter does on create).
    const checkpointed = await a.client.functions.invoke('checkpoint-machine', {
      body: { machineId: doorId },
    });
    if (checkpointed.error) throw new Error(String(checkpointed.error));
    const started = await a.client.rpc('start_simulation', {
      p_machine: doorId,
      p_context: null,
      p_guards: {},
    });
    if (started.error) throw new Error(started.error.message);
    // The function returns the simulation row; the generated types do not describe it.
    const simulationId = (started.data as unknown as { id: string }).id;
    const sent = await a.client.rpc('send_simulation_event', {
      p_simulation: simulationId,
      p_kind: 'event',
      p_type: 'OPEN',
      p_payload: {},
      p_guards: {},
    });
    if (sent.error) throw new Error(sent.error.message);

    const page = await app.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${app.url}/s/${link.data.share_token}`);
    await page.getByRole('button', { name: 'Continue as guest' }).click();
    await page.waitForURL(`**/p/${open.data.id}`);
    await page.goto(`${app.url}/p/${open.data.id}/m/${doorId}`);
    await active(page, 'opening').waitFor({ timeout: 60_000 });
    await showPanel(page, 'Simulation');
    await panel(page).getByText('You are watching: members send events.').waitFor();
    expect(await panel(page).getByRole('button', { name: 'OPEN', exact: true }).count()).toBe(0);
    expect(await panel(page).getByRole('button', { name: 'Simulate', exact: true }).count()).toBe(0);
    // What A sends next reaches the guest too.
    const time = await a.client.rpc('send_simulation_event', {
      p_simulation: simulationId,
      p_kind: 'time',
      p_type: null as unknown as string,
      p_payload: {},
      p_guards: {},
    });
    expect(time.error).toBeNull();
    await active(page, 'open.light.on').waitFor();
  });
});

describe('history states', () => {
  it('a history state brings back the child it left; B sees the highlight, the log and the context', async () => {
    // A player: `playing` remembers which of its children was active (a shallow history state).
    const PLAYER = {
      id: 'player',
      initial: 'stopped',
      context: { volume: 7, tracks: ['intro', 'outro'] },
      states: {
        stopped: { on: { PLAY: 'playing' } },
        playing: {
          initial: 'intro',
          on: { PAUSE: 'paused' },
          states: { intro: { on: { NEXT: 'outro' } }, outro: {}, hist: { type: 'history' } },
        },
        paused: { on: { RESUME: 'playing.hist', RESTART: 'playing' } },
      },
    };
    const playerId = await insertMachine(a.client, projectId, 'Player', PLAYER);
    for (const page of [a.page, b.page]) {
      await openMachinePage(app, page, projectId, playerId, 'stopped');
      await showPanel(page, 'Simulation');
    }
    await panel(a.page).getByRole('button', { name: 'Simulate', exact: true }).click();
    await active(b.page, 'stopped').waitFor();

    await eventButton(a.page, 'PLAY').click();
    await active(b.page, 'playing.intro').waitFor();
    await eventButton(a.page, 'NEXT').click();
    await active(b.page, 'playing.outro').waitFor();
    await eventButton(a.page, 'PAUSE').click();
    await active(b.page, 'paused').waitFor();
    expect(await activePaths(b.page)).toEqual(['paused']);
    // Through the history state: back to outro, not to playing's initial intro.
    await eventButton(a.page, 'RESUME').click();
    await active(b.page, 'playing.outro').waitFor();
    for (const page of [a.page, b.page]) expect(await activePaths(page)).toEqual(['playing', 'playing.outro']);
    // Entering playing plainly takes its initial child again.
    await eventButton(a.page, 'PAUSE').click();
    await active(b.page, 'paused').waitFor();
    await eventButton(a.page, 'RESTART').click();
    await active(b.page, 'playing.intro').waitFor();
    expect(await activePaths(b.page)).toEqual(['playing', 'playing.intro']);

    // B's log holds all six events in order, and B shows the context the simulation runs with.
    await expect
      .poll(() => panel(b.page).getByRole('listitem').filter({ hasText: /^#\d/ }).allTextContents())
      .toEqual([
        expect.stringContaining('#1 PLAY'),
        expect.stringContaining('#2 NEXT'),
        expect.stringContaining('#3 PAUSE'),
        expect.stringContaining('#4 RESUME'),
        expect.stringContaining('#5 PAUSE'),
        expect.stringContaining('#6 RESTART'),
      ]);
    const context = panel(b.page).getByLabel('Context', { exact: true });
    await expect.poll(() => context.textContent()).toContain('volume');
    expect(await context.textContent()).toContain('7');
    expect(await context.textContent()).toContain('outro');
  });
});

import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { activePaths, activeState, openMachinePage, simulationPanel } from './machine-page.ts';
import { createProject, insertMachine, signUpAccount, type Account } from './people.ts';

/**
 * Simulating on the diagram ("Simulating is visual"), two browsers on the real
 * app and backend: while a simulation runs, the label of each transition enabled now is a
 * button named by its event type; Ada clicks one and Bob's diagram shows the new active
 * state. Every label carries `data-transition-event` and `data-source-path`; active states
 * are filled with the accent (at least 3:1 against the canvas); the transition just taken
 * is marked; replaying shows the step's states and no send buttons. A guest clicking a
 * label sends nothing and is told why on the diagram.
 */

const app = useBrowserApp({ timeout: 240_000 });
let ada: Account & { page: Page };
let bob: Account & { page: Page };
let projectId: string;
let machineId: string;

const DOOR = {
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'opening', LOCK: { target: 'locked', guard: 'hasKey' } } },
    locked: { on: { UNLOCK: 'closed' } },
    opening: { after: { 1000: 'open' }, on: { CLOSE: 'closed' } },
    open: {
      type: 'parallel',
      on: { CLOSE: 'closed' },
      states: {
        light: { initial: 'on', states: { on: { on: { DIM: 'off' } }, off: {} } },
        alarm: { initial: 'armed', states: { armed: {} } },
      },
    },
  },
};

/**
 * A chart too big to read whole at 1280×800: Fit's overview shows `paying` as one box
 * (its eight steps and their long-named transitions inside it hidden).
 */
const STEPS = ['trying', 'authorising', 'capturing', 'settling', 'confirming', 'reconciling', 'retrying', 'refunding'];
const SHOP = {
  id: 'shop',
  initial: 'paying',
  states: {
    paying: {
      initial: 'trying',
      on: { CANCEL: 'failed' },
      states: Object.fromEntries(
        STEPS.map((step, i) => [
          step,
          {
            on: {
              GIVE_UP: '#shop.failed',
              ...Object.fromEntries(
                STEPS.filter((_, j) => j !== i && Math.abs(j - i) <= 2).map((to) => [
                  `WHEN_${step.toUpperCase()}_GOES_${to.toUpperCase()}`,
                  to,
                ]),
              ),
            },
          },
        ]),
      ),
    },
    failed: { on: { AGAIN: 'paying' } },
  },
};

const signIn = (email: string) => app.signIn(email, { viewport: { width: 1280, height: 800 } });
const diagram = (page: Page): Locator => page.locator('.diagram');
const panel = simulationPanel;
/** A transition's label on the diagram that sends its event now. */
const labelButton = (page: Page, type: string): Locator =>
  diagram(page).getByRole('button', { name: type, exact: true });
const active = activeState;

/** WCAG contrast of the active leaf's fill against the canvas behind it. */
const activeContrast = (page: Page, path: string): Promise<number> =>
  page.evaluate((path) => {
    const rgb = (el: Element, prop: 'fill'): number[] => {
      const probe = document.createElement('canvas').getContext('2d');
      if (!probe) return [0, 0, 0];
      probe.fillStyle = getComputedStyle(el)[prop];
      probe.fillRect(0, 0, 1, 1);
      return [...probe.getImageData(0, 0, 1, 1).data].slice(0, 3);
    };
    const lum = ([r, g, b]: number[]) => {
      const c = [r, g, b].map((v) => {
        const s = (v ?? 0) / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * (c[0] ?? 0) + 0.7152 * (c[1] ?? 0) + 0.0722 * (c[2] ?? 0);
    };
    const box = document.querySelector(`[data-state-path="${path}"] > .st-box`);
    const bg = document.querySelector('.diagram-bg');
    if (!box || !bg) return 0;
    const [a, b] = [lum(rgb(box, 'fill')), lum(rgb(bg, 'fill'))];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }, path);

beforeAll(async () => {
  const [pa, pb] = await Promise.all([signUpAccount('simd-ada'), signUpAccount('simd-bob')]);
  projectId = await createProject(pa.client, 'Diagram simulation', [{ id: pb.id, role: 'viewer' }]);
  machineId = await insertMachine(pa.client, projectId, 'Door', DOOR);
  const [sa, sb] = await Promise.all([signIn(pa.email), signIn(pb.email)]);
  ada = { ...pa, ...sa };
  bob = { ...pb, ...sb };
}, 240_000);

describe('simulating on the diagram, two browsers', () => {
  it("Ada clicks an enabled transition's label; Bob's diagram shows the new active state", async () => {
    await Promise.all([ada.page, bob.page].map((page) => openMachinePage(app, page, projectId, machineId, 'closed')));
    // The contract holds before any simulation: each label names its event and its source.
    const open = diagram(ada.page).locator('[data-transition-event="OPEN"]');
    expect(await open.getAttribute('data-source-path')).toBe('closed');
    expect(await diagram(ada.page).locator('[data-transition-event="DIM"]').getAttribute('data-source-path')).toBe(
      'open.light.on',
    );
    expect(await labelButton(ada.page, 'OPEN').count()).toBe(0);

    await showPanel(ada.page, 'Simulation');
    await panel(ada.page).getByRole('button', { name: 'Simulate', exact: true }).click();
    await active(bob.page, 'closed').waitFor();

    // Enabled now: OPEN (LOCK's guard switch is off, DIM's state is not active).
    await labelButton(ada.page, 'OPEN').waitFor();
    await labelButton(bob.page, 'OPEN').waitFor();
    expect(await labelButton(ada.page, 'LOCK').count()).toBe(0);
    expect(await labelButton(ada.page, 'DIM').count()).toBe(0);
    expect(await activeContrast(ada.page, 'closed')).toBeGreaterThanOrEqual(3);

    await labelButton(ada.page, 'OPEN').click();
    await active(bob.page, 'opening').waitFor();
    await active(ada.page, 'opening').waitFor();
    // The transition just taken is marked (an animation no one waits for), and the next ones are enabled.
    const openId = await open.evaluate((el) => el.closest('[data-transition-id]')?.getAttribute('data-transition-id'));
    expect(await bob.page.locator(`[data-transition-id="${openId}"] .tr-taken`).count()).toBe(1);
    await labelButton(bob.page, 'CLOSE').waitFor();
    expect(await labelButton(bob.page, 'OPEN').count()).toBe(0);

    // A guard switched on in the panel enables LOCK on the diagram too.
    await labelButton(ada.page, 'CLOSE').click();
    await active(bob.page, 'closed').waitFor();
    await panel(ada.page).getByRole('switch', { name: 'hasKey' }).check();
    await labelButton(ada.page, 'LOCK').click();
    await active(bob.page, 'locked').waitFor();

    // Bob, a viewer, sends from his diagram as from his panel's buttons (members of any role send).
    await labelButton(bob.page, 'UNLOCK').click();
    await active(ada.page, 'closed').waitFor();
    await labelButton(ada.page, 'OPEN').click();
    await active(ada.page, 'opening').waitFor();
    await panel(ada.page).getByRole('button', { name: 'Advance time', exact: true }).click();
    for (const page of [ada.page, bob.page]) {
      await active(page, 'open.light.on').waitFor();
      expect(await activePaths(page)).toEqual([
        'open',
        'open.alarm',
        'open.alarm.armed',
        'open.light',
        'open.light.on',
      ]);
    }
    await labelButton(bob.page, 'DIM').click();
    await active(ada.page, 'open.light.off').waitFor();
    await expect
      .poll(() => panel(ada.page).getByRole('listitem').filter({ hasText: /^#\d/ }).allTextContents())
      .toEqual([
        expect.stringContaining('#1 OPEN'),
        expect.stringContaining('#2 CLOSE'),
        expect.stringContaining('#3 LOCK'),
        expect.stringContaining('#4 UNLOCK'),
        expect.stringContaining('#5 OPEN'),
        expect.stringContaining('#6 Advance time'),
        expect.stringContaining('#7 DIM'),
      ]);
  });

  it('a replay step shows on the diagram as active states, with no send buttons', async () => {
    await panel(ada.page).getByRole('button', { name: 'Step back', exact: true }).click();
    await active(ada.page, 'open.light.on').waitFor();
    expect(await activePaths(ada.page)).toEqual([
      'open',
      'open.alarm',
      'open.alarm.armed',
      'open.light',
      'open.light.on',
    ]);
    expect(await diagram(ada.page).locator('[data-send-event]').count()).toBe(0);
    // Bob stays at the live end.
    expect(await active(bob.page, 'open.light.off').count()).toBe(1);
    await labelButton(bob.page, 'CLOSE').waitFor();
    await panel(ada.page).getByRole('button', { name: 'Step forward', exact: true }).click();
    await active(ada.page, 'open.light.off').waitFor();
    await labelButton(ada.page, 'CLOSE').waitFor();
  });
});

describe('simulating a chart that opens as an overview', () => {
  it('the collapsed box holding the active state is drawn active and says which; its enabled labels send', async () => {
    const shopId = await insertMachine(ada.client, projectId, 'Shop', SHOP);
    await Promise.all([ada.page, bob.page].map((page) => openMachinePage(app, page, projectId, shopId, 'paying')));
    const box = (page: Page) => diagram(page).locator('[data-state-path="paying"][data-hidden]');
    await box(ada.page).waitFor();
    await showPanel(ada.page, 'Simulation');
    await panel(ada.page).getByRole('button', { name: 'Simulate', exact: true }).click();
    for (const page of [ada.page, bob.page]) {
      await box(page).and(page.locator('[data-active="true"]')).waitFor();
      // The line drawn (its tooltip, a <title>, keeps the count).
      const line = await box(page)
        .locator('.st-inside')
        .evaluate((el) =>
          [...el.childNodes]
            .filter((n) => n.nodeType === Node.TEXT_NODE)
            .map((n) => n.textContent)
            .join(''),
        );
      expect(line).toBe('▶ trying');
      // Filled like an active state, not outlined like an active compound.
      expect(await activeContrast(page, 'paying')).toBeGreaterThanOrEqual(3);
      // trying itself is hidden in the box: no box of its own.
      expect(await diagram(page).locator('[data-state-path="paying.trying"]').count()).toBe(0);
    }
    // GIVE_UP leaves the box from the hidden `trying`: its label is still a button, named by its event.
    const giveUp = labelButton(ada.page, 'GIVE_UP');
    await giveUp.waitFor();
    expect(await giveUp.getAttribute('data-transition-event')).toBe('GIVE_UP');
    expect(await giveUp.getAttribute('data-source-path')).toBe('paying.trying');
    await giveUp.click();
    await active(bob.page, 'failed').waitFor();
    expect(await box(bob.page).getAttribute('data-active')).toBeNull();
    expect(await box(bob.page).locator('.st-inside').count()).toBe(0);
  });
});

describe('a guest', () => {
  it('clicking an enabled label sends nothing and the diagram says why', async () => {
    const project = await ada.client
      .from('projects')
      .insert({ name: 'Public door', visibility: 'public' })
      .select('id')
      .single();
    if (project.error) throw new Error(project.error.message);
    const link = await ada.client
      .rpc('owned_share_tokens', { p_project: project.data.id })
      .single<{ share_token: string }>();
    if (link.error) throw new Error(link.error.message);
    const doorId = await insertMachine(ada.client, project.data.id, 'Public door', DOOR);
    const checkpointed = await ada.client.functions.invoke('checkpoint-machine', { body: { machineId: doorId } });
    if (checkpointed.error) throw new Error(String(checkpointed.error));
    const started = await ada.client.rpc('start_simulation', { p_machine: doorId, p_context: null, p_guards: {} });
    if (started.error) throw new Error(started.error.message);
    const simulationId = (started.data as unknown as { id: string }).id;

    const page = await app.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${app.url}/s/${link.data.share_token}`);
    await page.getByRole('button', { name: 'Continue as guest' }).click();
    await page.waitForURL(`**/p/${project.data.id}`);
    await page.goto(`${app.url}/p/${project.data.id}/m/${doorId}`);
    await active(page, 'closed').waitFor({ timeout: 60_000 });

    await labelButton(page, 'OPEN').click();
    await diagram(page).getByRole('alert').filter({ hasText: 'You are watching: members send events.' }).waitFor();
    // Nothing was sent: the log stays empty and the guest still sees closed.
    const events = await ada.client.from('simulation_events').select('seq').eq('simulation_id', simulationId);
    expect(events.error).toBeNull();
    expect(events.data).toEqual([]);
    expect(await activePaths(page)).toEqual(['closed']);
    await diagram(page).getByRole('button', { name: 'Dismiss', exact: true }).click();
    expect(await diagram(page).getByRole('alert').count()).toBe(0);
  });
});

import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { createDoc, receive } from '../../src/lib/collab/doc.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { closePanels, showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox, synced } from './machine-page.ts';
import { createProject, insertMachine, signUpPerson, type Client } from './people.ts';

/**
 * The live canvas in two browsers, through the real app at
 * /p/:projectId/m/:machineId over the embedded backend: A adds a state and B sees it; A
 * and B edit at once and both edits survive; B sees A's cursor and selection; B follows
 * A's viewport until B pans; a viewer cannot edit; an edit made offline is committed
 * after reconnecting. People, the project and the machine are arranged from Node through
 * supabase-js; everything asserted is read off the pages (and the database for what
 * was stored).
 */

interface Person {
  id: string;
  name: string;
  client: Client;
  context: BrowserContext;
  page: Page;
}

const app = useBrowserApp({ timeout: 240_000 });
let a: Person;
let b: Person;
let projectId: string;

const person = (name: string): Promise<Omit<Person, 'context' | 'page'> & { email: string }> =>
  signUpPerson('canvas', name);

const signIn = (email: string) => app.signIn(email, { viewport: { width: 1400, height: 900 } });

const CHECKOUT = {
  id: 'checkout',
  initial: 'cart',
  states: {
    cart: { on: { CHECKOUT: 'payment' } },
    payment: { on: { PAY: 'done' } },
    done: { type: 'final' },
  },
};

const newMachine = (name: string): Promise<string> => insertMachine(a.client, projectId, name, CHECKOUT);

async function open(p: Person, machineId: string) {
  await openMachinePage(app, p.page, projectId, machineId, 'cart');
  await synced(p.page);
}

/** The machine as stored: its checkpoint plus the log after it, replayed (a checkpoint trails the log by up to 100 ops). */
async function storedKeys(machineId: string): Promise<string[]> {
  const loaded = await createMachinesAdapter(a.client).loadMachine(machineId);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const { definition, version, tail } = loaded.value;
  const def = receive(chartroomModel, createDoc<MachineDefinition, Op>(definition, version), tail).state.confirmed;
  return Object.values(def.states)
    .map((s) => s.key)
    .filter((k) => k !== '')
    .sort();
}

async function rename(page: Page, from: string, to: string) {
  await stateBox(page, from).dblclick();
  const input = page.getByRole('textbox', { name: 'State name' });
  await input.fill(to);
  await input.press('Enter');
  await stateBox(page, to).waitFor();
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([person('Ada'), person('Bo')]);
  projectId = await createProject(pa.client, 'Canvas room', [{ id: pb.id, role: 'editor' }]);
  const [sa, sb] = await Promise.all([signIn(pa.email), signIn(pb.email)]);
  a = { ...pa, ...sa };
  b = { ...pb, ...sb };
}, 240_000);

describe('live canvas, two browsers', () => {
  it('lists the machine in the room and opens it; A adds a state and B sees it without reloading', async () => {
    const machineId = await newMachine('Checkout');
    await b.page.goto(`${app.url}/p/${projectId}`);
    await b.page.getByRole('link', { name: 'Checkout' }).click();
    await b.page.waitForURL(`**/p/${projectId}/m/${machineId}`);
    await stateBox(b.page, 'cart').waitFor({ timeout: 60_000 });
    await open(a, machineId);

    await stateBox(a.page, 'cart').click();
    await a.page.getByRole('button', { name: 'Add child' }).click();
    const input = a.page.getByRole('textbox', { name: 'State name' });
    await input.fill('items');
    await input.press('Enter');
    await stateBox(b.page, 'items').waitFor();
    await synced(a.page);
    expect(await storedKeys(machineId)).toEqual(['cart', 'done', 'items', 'payment']);
    // B's Code panel was closed meanwhile (its editor waits while unseen): opened, it shows the new state.
    expect(await b.page.locator('.code-host').isVisible()).toBe(false);
    await showPanel(b.page, 'Code');
    await expect.poll(() => b.page.locator('.cm-content').textContent()).toContain('"items"');
    // An edit B does not apply goes when B closes the Code panel: opened again, it shows the machine.
    await b.page.locator('.cm-content').click();
    await b.page.keyboard.press('Control+End');
    await b.page.keyboard.insertText(' unapplied');
    await b.page.getByText('Edited — apply to share').waitFor();
    await closePanels(b.page);
    await showPanel(b.page, 'Code');
    await b.page.getByText('XState v5 config').waitFor();
    await expect.poll(() => b.page.locator('.cm-content').textContent()).not.toContain('unapplied');
    expect(await b.page.locator('.cm-content').textContent()).toContain('"items"');

    // Renaming the machine shows on B's page too.
    await a.page.getByRole('button', { name: 'Machine menu' }).click();
    await a.page.getByRole('button', { name: 'Rename machine' }).click();
    await a.page.getByLabel('Machine name').fill('Checkout flow');
    await a.page.getByRole('button', { name: 'Save name' }).click();
    await b.page.getByRole('heading', { level: 1, name: 'Checkout flow' }).waitFor();
  }, 180_000);

  it('keeps both edits when A and B edit the same machine at once', async () => {
    const machineId = await newMachine('Concurrent');
    await Promise.all([open(a, machineId), open(b, machineId)]);
    await Promise.all([rename(a.page, 'cart', 'basket'), rename(b.page, 'done', 'finished')]);
    for (const page of [a.page, b.page]) {
      await stateBox(page, 'basket').waitFor();
      await stateBox(page, 'finished').waitFor();
      await synced(page);
    }
    expect(await storedKeys(machineId)).toEqual(['basket', 'finished', 'payment']);
  }, 180_000);

  it("shows A's cursor and selection to B, and lets B follow A's viewport until B pans", async () => {
    const machineId = await newMachine('Presence');
    await Promise.all([open(a, machineId), open(b, machineId)]);

    // A's pointer over the diagram appears on B's screen, labelled with A's name.
    const box = await stateBox(a.page, 'payment').boundingBox();
    if (!box) throw new Error('no geometry');
    await a.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
    const cursor = b.page.locator(`.peer-cursor[data-peer="${a.id}"]`);
    await cursor.waitFor();
    await expect(cursor.textContent()).resolves.toBe('Ada');

    // A's selection is outlined on B's diagram.
    await stateBox(a.page, 'payment').click();
    await stateBox(b.page, 'payment').locator('.peer-outline').waitFor();
    await expect(stateBox(b.page, 'cart').locator('.peer-outline').count()).resolves.toBe(0);

    // B follows A: A zooms in twice and B's zoom follows.
    await b.page.getByRole('button', { name: 'Follow Ada' }).click();
    await b.page.getByText('Following Ada').waitFor();
    const zoomOf = (page: Page) => page.locator('.canvas-toolbar .zoom').textContent();
    await a.page.getByRole('button', { name: 'Zoom in' }).click();
    await a.page.getByRole('button', { name: 'Zoom in' }).click();
    // And A pans away, so A's view is far from where B's own fit had put B's.
    const aStage = await a.page.locator('.canvas-stage').boundingBox();
    if (!aStage) throw new Error('no stage');
    await a.page.mouse.move(aStage.x + 30, aStage.y + aStage.height - 30);
    await a.page.mouse.down();
    await a.page.mouse.move(aStage.x + 230, aStage.y + aStage.height - 130, { steps: 5 });
    await a.page.mouse.up();
    const aZoom = await zoomOf(a.page);
    await expect.poll(() => zoomOf(b.page), { timeout: 10_000 }).toBe(aZoom);
    // The same world point sits at the centre of both screens: B's view moved with A's.
    const centreOf = (page: Page) =>
      page.evaluate(() => {
        const stage = document.querySelector('.canvas-stage');
        const target = document.querySelector('[aria-label="state payment"]');
        if (!stage || !target) return null;
        const s = stage.getBoundingClientRect();
        const t = target.getBoundingClientRect();
        return { dx: t.x + t.width / 2 - (s.x + s.width / 2), dy: t.y + t.height / 2 - (s.y + s.height / 2) };
      });
    const ac = await centreOf(a.page);
    if (!ac) throw new Error('no centre');
    expect(Math.hypot(ac.dx, ac.dy)).toBeGreaterThan(100);
    const offBy = async () => {
      const bc = await centreOf(b.page);
      return bc ? Math.hypot(ac.dx - bc.dx, ac.dy - bc.dy) : Infinity;
    };
    // Screen pixels between where the same state sits relative to each screen's centre.
    await expect.poll(offBy, { timeout: 10_000 }).toBeLessThan(6);

    // B pans: follow mode ends, and A's next zoom leaves B where B is.
    const stage = await b.page.locator('.canvas-stage').boundingBox();
    if (!stage) throw new Error('no stage');
    await b.page.mouse.move(stage.x + 20, stage.y + stage.height - 20);
    await b.page.mouse.down();
    await b.page.mouse.move(stage.x + 120, stage.y + stage.height - 60, { steps: 4 });
    await b.page.mouse.up();
    await b.page.getByText('Following Ada').waitFor({ state: 'detached' });
    await expect(b.page.getByRole('button', { name: 'Follow Ada' }).getAttribute('aria-pressed')).resolves.toBe(
      'false',
    );
    const bZoom = await zoomOf(b.page);
    const cursorAt = () => cursor.getAttribute('style');
    const before = await cursorAt();
    await a.page.getByRole('button', { name: 'Zoom out' }).click();
    await expect.poll(() => zoomOf(a.page)).not.toBe(aZoom);
    // A's view went out before A's next pointer move; once B sees the move, B has had the view.
    await a.page.mouse.move(box.x + 10, box.y + 10, { steps: 3 });
    await expect.poll(cursorAt, { timeout: 10_000 }).not.toBe(before);
    await expect(zoomOf(b.page)).resolves.toBe(bZoom);
  }, 180_000);

  it('lets an edit made offline reach B after A reconnects, even across a reload', async () => {
    const machineId = await newMachine('Offline');
    await Promise.all([open(a, machineId), open(b, machineId)]);
    await a.context.setOffline(true);
    await rename(a.page, 'payment', 'paying');
    await a.page.locator('[data-sync="offline"]').waitFor({ timeout: 20_000 });
    await expect(a.page.locator('[data-sync="offline"]').textContent()).resolves.toContain('1 edit waiting');
    // Nothing reached the server or B meanwhile.
    expect(await storedKeys(machineId)).toEqual(['cart', 'done', 'payment']);
    await expect(stateBox(b.page, 'payment').count()).resolves.toBe(1);

    await a.context.setOffline(false);
    await stateBox(b.page, 'paying').waitFor({ timeout: 30_000 });
    await synced(a.page);
    expect(await storedKeys(machineId)).toEqual(['cart', 'done', 'paying']);

    // Offline again, another edit, and the tab closes before the network is back: the
    // queue waits in this browser's storage and goes out when the machine is next opened.
    await a.context.setOffline(true);
    await rename(a.page, 'cart', 'trolley');
    await a.page.locator('[data-sync="offline"]').waitFor({ timeout: 20_000 });
    await a.page.close();
    await a.context.setOffline(false);
    a.page = await a.context.newPage();
    await a.page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
    await stateBox(a.page, 'trolley').waitFor({ timeout: 60_000 });
    await stateBox(b.page, 'trolley').waitFor({ timeout: 30_000 });
    await synced(a.page);
    expect(await storedKeys(machineId)).toEqual(['done', 'paying', 'trolley']);
  }, 180_000);

  it("starts an empty project from Chartroom's own machines, and creates a blank machine that opens at once", async () => {
    const created = await a.client.from('projects').insert({ name: 'From examples' }).select('id').single();
    if (created.error) throw new Error(created.error.message);
    await a.page.goto(`${app.url}/p/${created.data.id}`);
    await a.page.getByText('No machines yet.').waitFor();
    await a.page.getByRole('button', { name: "Start from Chartroom's own machines" }).click();
    for (const name of ['session', 'connection', 'room', 'document', 'projects', 'invites', 'canvas', 'layout']) {
      await a.page.getByRole('link', { name, exact: true }).waitFor();
    }
    const stored = await a.client.from('machines').select('name').eq('project_id', created.data.id);
    expect(stored.data?.map((m) => m.name).sort()).toEqual([
      'canvas',
      'connection',
      'document',
      'invites',
      'layout',
      'projects',
      'room',
      'session',
    ]);
    await a.page.getByRole('link', { name: 'document', exact: true }).click();
    await stateBox(a.page, 'loading').waitFor({ timeout: 60_000 });

    await a.page.goto(`${app.url}/p/${created.data.id}`);
    await a.page.getByLabel('New machine').fill('Turnstile');
    await a.page.getByRole('button', { name: 'Create', exact: true }).click();
    await a.page.waitForURL(/\/m\/[0-9a-f-]{36}$/);
    await a.page.getByRole('heading', { name: 'Turnstile' }).waitFor();
    await stateBox(a.page, 'idle').waitFor({ timeout: 60_000 });
  }, 180_000);

  it('gives a viewer no way to edit, live when demoted', async () => {
    const machineId = await newMachine('Viewer');
    await Promise.all([open(a, machineId), open(b, machineId)]);
    await b.page.getByRole('button', { name: 'Add child' }).waitFor();
    const demoted = await a.client
      .from('project_members')
      .update({ role: 'viewer' })
      .eq('project_id', projectId)
      .eq('user_id', b.id);
    if (demoted.error) throw new Error(demoted.error.message);

    await b.page.getByText('View only').waitFor();
    await expect(b.page.getByRole('button', { name: 'Add child' }).count()).resolves.toBe(0);
    await expect(b.page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0);
    // Keyboard and double-click do nothing either.
    await stateBox(b.page, 'cart').click();
    await b.page.keyboard.press('Delete');
    await stateBox(b.page, 'cart').dblclick();
    await expect(b.page.getByRole('textbox', { name: 'State name' }).count()).resolves.toBe(0);
    await expect(stateBox(b.page, 'cart').count()).resolves.toBe(1);
    await expect(b.page.locator('.cm-content').getAttribute('contenteditable')).resolves.toBe('false');
    expect(await storedKeys(machineId)).toEqual(['cart', 'done', 'payment']);
    // A still edits, and B, reading, sees it.
    await rename(a.page, 'done', 'complete');
    await stateBox(b.page, 'complete').waitFor();
  }, 180_000);
});

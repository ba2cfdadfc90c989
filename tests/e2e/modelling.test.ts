import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { downloaded, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox, synced } from './machine-page.ts';
import { createProject, insertMachine, signUpPerson, type Client } from './people.ts';

/**
 * Modelling without JSON, in two browsers through the real app over the embedded backend:
 * A changes a state's type, adds history and final states, sets a guard and an `after`
 * delay from the Inspector, drags a transition's end onto another state, and B sees each; A imports a TypeScript machine file over the
 * open machine and B sees it; the exported SVG names every state and the exported PNG has
 * the diagram's size; the exported Mermaid renders with the mermaid package (in this test
 * only, in Chromium); a malformed file gives an error in words and changes nothing.
 * Everything asserted is read off the pages and the downloaded files.
 */

/** mermaid's browser bundle, loaded into a blank Chromium page by the Mermaid test only. */
const MERMAID_BUNDLE = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

interface Person {
  id: string;
  client: Client;
  context: BrowserContext;
  page: Page;
}

const app = useBrowserApp({ timeout: 240_000 });
let a: Person;
let b: Person;
let projectId: string;

const person = (name: string): Promise<{ id: string; client: Client; email: string }> =>
  signUpPerson('modelling', name);

const CHECKOUT = {
  id: 'checkout',
  initial: 'cart',
  states: {
    cart: { on: { CHECKOUT: 'payment' } },
    payment: { on: { PAY: 'paid' } },
    paid: { type: 'final' },
  },
};

const newMachine = (name: string): Promise<string> => insertMachine(a.client, projectId, name, CHECKOUT);

const atPath = (page: Page, path: string): Locator => page.locator(`[data-state-path="${path}"]`).first();
const inspector = (page: Page): Locator => page.getByRole('region', { name: 'Inspector', exact: true });

async function open(p: Person, machineId: string) {
  await openMachinePage(app, p.page, projectId, machineId, 'cart');
  await synced(p.page);
}

/** Fill a labelled Inspector field and commit it (Enter). */
async function setField(page: Page, label: string, value: string) {
  const field = inspector(page).getByLabel(label, { exact: true });
  await field.fill(value);
  await field.press('Enter');
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([person('Ada'), person('Bo')]);
  projectId = await createProject(pa.client, 'Modelling room', [{ id: pb.id, role: 'editor' }]);
  const options = { viewport: { width: 1500, height: 950 }, acceptDownloads: true };
  const [sa, sb] = await Promise.all([app.signIn(pa.email, options), app.signIn(pb.email, options)]);
  a = { ...pa, ...sa };
  b = { ...pb, ...sb };
}, 240_000);

describe('modelling from the Inspector, two browsers', () => {
  it('A makes a state parallel, adds history and final states, sets a guard and an after delay; B sees each', async () => {
    const machineId = await newMachine('Modelled');
    await Promise.all([open(a, machineId), open(b, machineId)]);

    // Parallel: A changes payment's type; B, selecting payment, reads it in its own Inspector.
    await stateBox(a.page, 'payment').click();
    await inspector(a.page).getByRole('region', { name: 'State payment' }).waitFor();
    await inspector(a.page).getByLabel('Type', { exact: true }).selectOption('parallel');
    await stateBox(b.page, 'payment').click();
    await expect.poll(() => inspector(b.page).getByLabel('Type', { exact: true }).inputValue()).toBe('parallel');

    // A history state and a final state, added under payment and cart.
    await inspector(a.page).getByRole('button', { name: 'Add history state' }).click();
    await atPath(b.page, 'payment.hist').waitFor();
    await stateBox(a.page, 'cart').click();
    await inspector(a.page).getByRole('button', { name: 'Add final state' }).click();
    await atPath(b.page, 'cart.done').waitFor();
    await stateBox(b.page, 'done').click();
    await expect.poll(() => inspector(b.page).getByLabel('Type', { exact: true }).inputValue()).toBe('final');

    // A guard on CHECKOUT.
    await a.page.getByRole('button', { name: 'transition CHECKOUT' }).click();
    await setField(a.page, 'Guard', 'and(hasItems, not(isLocked))');
    await b.page.getByRole('button', { name: 'transition CHECKOUT' }).click();
    await expect
      .poll(() => inspector(b.page).getByLabel('Guard', { exact: true }).inputValue())
      .toBe('and(hasItems, not(isLocked))');

    // A drags CHECKOUT's arrow end from payment onto paid (retarget on the canvas); B reads the new target.
    const end = await a.page.getByRole('button', { name: /^Drag to retarget CHECKOUT.* → payment$/ }).boundingBox();
    const paid = await stateBox(a.page, 'paid').boundingBox();
    if (!end || !paid) throw new Error('no geometry');
    await a.page.mouse.move(end.x + end.width / 2, end.y + end.height / 2);
    await a.page.mouse.down();
    await a.page.mouse.move(paid.x + paid.width / 2, paid.y + paid.height / 2, { steps: 8 });
    await a.page.mouse.up();
    await expect.poll(() => inspector(b.page).getByLabel('Targets', { exact: true }).inputValue()).toBe('paid');
    await b.page.getByRole('button', { name: /^Drag to retarget CHECKOUT.* → paid$/ }).waitFor();

    // An after delay on payment (clicked on its header: its history child fills the middle).
    await stateBox(a.page, 'payment').click({ position: { x: 12, y: 8 } });
    await inspector(a.page).getByRole('region', { name: 'State payment' }).waitFor();
    await setField(a.page, 'Add delayed transition (ms or delay name)', '2500');
    await b.page.getByRole('button', { name: 'transition after 2500ms' }).waitFor();
    await synced(a.page);
  }, 240_000);

  it('A imports a TypeScript machine file over the open machine; B sees it', async () => {
    const machineId = await newMachine('Imported');
    await Promise.all([open(a, machineId), open(b, machineId)]);
    const source = `import { setup } from 'xstate';
export const light = setup({ guards: { canWalk: () => true } }).createMachine({
  id: 'light',
  initial: 'green',
  states: {
    green: { after: { 3000: 'yellow' } },
    yellow: { on: { TIMER: { target: 'red', guard: 'canWalk' } } },
    red: { entry: () => console.log('stop'), on: { TIMER: 'green' } },
  },
});
`;
    await inspector(a.page).getByRole('button', { name: 'Import', exact: true }).click();
    await inspector(a.page)
      .getByLabel('Machine file (TypeScript, JavaScript, JSON or SCXML)')
      .setInputFiles({ name: 'light.ts', mimeType: 'text/plain', buffer: Buffer.from(source) });
    await inspector(a.page).getByRole('button', { name: 'Read machine' }).click();
    // The inline entry function is reported with where it is, and kept as a named placeholder.
    await inspector(a.page)
      .getByRole('list', { name: 'Import notes' })
      .getByText(/line 8, column 19/)
      .waitFor();
    // As a new machine: the machine list creates it beside this one (a row in the project), and the review closes.
    await inspector(a.page).getByRole('button', { name: 'Import as new machine' }).click();
    await inspector(a.page).getByRole('group', { name: 'Imported machine' }).waitFor({ state: 'detached' });
    await expect
      .poll(async () => {
        const rows = await a.client.from('machines').select('name').eq('project_id', projectId).eq('name', 'light');
        return rows.data?.length ?? 0;
      })
      .toBe(1);
    // Read again, to put it in place of this one.
    await inspector(a.page).getByRole('button', { name: 'Read machine' }).click();
    await inspector(a.page).getByRole('group', { name: 'Imported machine' }).waitFor();
    await inspector(a.page).getByRole('button', { name: 'Replace this machine' }).click();
    await inspector(a.page).getByRole('alertdialog', { name: 'Replace this machine' }).waitFor();
    await inspector(a.page).getByRole('button', { name: 'Replace machine' }).click();
    for (const name of ['green', 'yellow', 'red']) await stateBox(b.page, name).waitFor();
    await expect(stateBox(b.page, 'cart').count()).resolves.toBe(0);
    await b.page.getByRole('button', { name: 'transition after 3000ms' }).waitFor();
    await synced(a.page);
  }, 240_000);

  it('exports an SVG that names every state and a PNG the size of the diagram', async () => {
    const machineId = await newMachine('Exported');
    await open(a, machineId);
    // Both exports draw the same picture: wait until no layout is under way (a chart far
    // wider than the pane is laid out again once the pane is measured).
    await a.page.locator('.canvas-stage[data-layout="ready"]').waitFor();
    const names = ['cart', 'payment', 'paid'];

    await inspector(a.page).getByRole('button', { name: 'Export', exact: true }).click();
    const [svgDownload] = await Promise.all([
      a.page.waitForEvent('download'),
      a.page.getByRole('menuitem', { name: 'SVG' }).click(),
    ]);
    const svg = (await downloaded(svgDownload)).toString('utf8');
    expect(svg).toMatch(/^<\?xml[^>]*>\s*<svg/);
    for (const n of names) expect(svg).toContain(`>${n}</text>`);
    const width = Number(/<svg[^>]*\swidth="(\d+)"/.exec(svg)?.[1]);
    const height = Number(/<svg[^>]*\sheight="(\d+)"/.exec(svg)?.[1]);
    expect(width).toBeGreaterThan(100);
    expect(height).toBeGreaterThan(50);

    // The SVG opens in the browser and shows the names.
    const viewer = await a.context.newPage();
    await viewer.setContent(svg.replace(/^<\?xml[^>]*>/, ''));
    for (const n of names) await viewer.getByText(n, { exact: true }).first().waitFor();
    await viewer.close();

    await inspector(a.page).getByRole('button', { name: 'Export', exact: true }).click();
    const [pngDownload] = await Promise.all([
      a.page.waitForEvent('download'),
      a.page.getByRole('menuitem', { name: 'PNG' }).click(),
    ]);
    const png = await downloaded(pngDownload);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({ width, height });

    // Text formats come with Copy.
    await inspector(a.page).getByRole('button', { name: 'Export', exact: true }).click();
    await a.page.getByRole('menuitem', { name: 'TypeScript' }).click();
    const ts = await inspector(a.page).getByLabel('TypeScript export').inputValue();
    expect(ts).toContain('export const machine = setup({');
    await inspector(a.page).getByRole('button', { name: 'Copy', exact: true }).waitFor();
  }, 240_000);

  it('exported Mermaid renders with the mermaid package in Chromium, naming every state', async () => {
    const machineId = await newMachine('Mermaid');
    await open(a, machineId);
    // "?" on the diagram shows the keyboard shortcuts.
    await stateBox(a.page, 'cart').click();
    await a.page.keyboard.press('?');
    await expect.poll(() => inspector(a.page).locator('details.inspector-keys').getAttribute('open')).toBe('');
    await inspector(a.page).getByText('P / H / F: add a parallel / history / final state').waitFor();
    await inspector(a.page).getByRole('button', { name: 'Export', exact: true }).click();
    await a.page.getByRole('menuitem', { name: 'Mermaid' }).click();
    const source = await inspector(a.page).getByLabel('Mermaid export').inputValue();
    expect(source).toMatch(/^stateDiagram-v2/);

    const viewer = await a.context.newPage();
    await viewer.setContent('<div id="out"></div>');
    await viewer.addScriptTag({ path: MERMAID_BUNDLE });
    const rendered = await viewer.evaluate(async (text) => {
      const api = (window as unknown as { mermaid: typeof import('mermaid').default }).mermaid;
      api.initialize({ startOnLoad: false });
      const { svg } = await api.render('exported', text);
      const out = document.getElementById('out')!;
      out.innerHTML = svg;
      return { svg: out.querySelector('svg') !== null, text: out.textContent ?? '' };
    }, source);
    expect(rendered.svg).toBe(true);
    for (const n of ['cart', 'payment', 'paid']) expect(rendered.text).toContain(n);
    expect(rendered.text).toContain('CHECKOUT');
    await viewer.close();
  }, 240_000);

  it('a malformed TypeScript, SCXML or JSON file gives a clear error and changes nothing', async () => {
    const machineId = await newMachine('Untouched');
    await open(a, machineId);
    const before = await a.client.from('machines').select('definition').eq('id', machineId).single();
    const count = async () =>
      (await a.client.from('machines').select('id', { count: 'exact', head: true }).eq('project_id', projectId)).count;
    const machinesBefore = await count();
    const files = [
      {
        name: 'broken.ts',
        text: "import { createMachine } from 'xstate';\nexport const m = createMachine({\n  initial: 'a',\n  states: {\n",
        error: /line \d+, column \d+: syntax error/,
      },
      {
        name: 'broken.scxml',
        text: '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="a"></scxml>',
        error: /line 1, column \d+: not well-formed XML: <\/scxml> closes <state>/,
      },
      { name: 'broken.json', text: '{ "initial": "a", "states": {', error: /line 1, column \d+: invalid JSON/ },
      { name: 'plain.ts', text: 'export const x = 1;\n', error: /no createMachine\(\.\.\.\) call found/ },
    ];
    await inspector(a.page).getByRole('button', { name: 'Import', exact: true }).click();
    for (const f of files) {
      await inspector(a.page)
        .getByLabel('Machine file (TypeScript, JavaScript, JSON or SCXML)')
        .setInputFiles({ name: f.name, mimeType: 'text/plain', buffer: Buffer.from(f.text) });
      await inspector(a.page).getByRole('button', { name: 'Read machine' }).click();
      await expect.poll(() => inspector(a.page).getByRole('alert').textContent()).toMatch(f.error);
      // Nothing to import or replace with is offered.
      expect(await inspector(a.page).getByRole('group', { name: 'Imported machine' }).count()).toBe(0);
    }
    for (const name of ['cart', 'payment', 'paid']) await stateBox(a.page, name).waitFor();
    await synced(a.page);
    const after = await a.client.from('machines').select('definition').eq('id', machineId).single();
    expect(after.data?.definition).toEqual(before.data?.definition);
    expect(await count()).toBe(machinesBefore);
  }, 240_000);

  it('A copies a state with its subtree and pastes it within the machine and into another; B sees the paste', async () => {
    const [first, second] = [await newMachine('Copied from'), await newMachine('Pasted into')];
    await Promise.all([open(a, first), open(b, first)]);
    await stateBox(a.page, 'payment').click();
    await inspector(a.page).getByRole('button', { name: 'Copy state' }).click();
    await stateBox(a.page, 'cart').click();
    await a.page.keyboard.press('ControlOrMeta+v');
    await atPath(b.page, 'cart.payment').waitFor();
    await atPath(b.page, 'payment').waitFor();
    await synced(a.page);

    await open(a, second);
    await stateBox(a.page, 'cart').click();
    await inspector(a.page).getByRole('button', { name: 'Paste state' }).click();
    await atPath(a.page, 'cart.payment').waitFor();
    // A final state cannot hold states: the paste is refused in words.
    await stateBox(a.page, 'paid').click();
    await inspector(a.page).getByRole('button', { name: 'Paste state' }).click();
    await inspector(a.page).getByRole('alert').getByText('a final state cannot hold other states').waitFor();
    await synced(a.page);
  }, 240_000);
});

import type { Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox, synced } from './machine-page.ts';
import { createProject, insertMachine, signUpPerson, type Client } from './people.ts';

/**
 * Edits sent ahead of the log, in two browsers: while A's append is held on the network,
 * B already shows A's edit (it came on `machine-pending:<id>`), and the log has nothing
 * yet; once the append goes through, the log confirms it. When A's append never reaches
 * the server (A's tab is gone), B rolls the edit back on its own.
 */

const app = useBrowserApp({ timeout: 240_000 });
let projectId: string;
let owner: Client;
let adaEmail: string;
let boEmail: string;

const LIGHT = {
  id: 'light',
  initial: 'green',
  states: { green: { on: { NEXT: 'red' } }, red: { on: { NEXT: 'green' } } },
};

const signIn = (email: string) => app.signIn(email, { viewport: { width: 1280, height: 800 } });

/** Holds every append A's page makes until `release` (continue) or `drop` (abort) is called. */
async function holdAppends(page: Page) {
  const held: Route[] = [];
  let seen!: () => void;
  const first = new Promise<void>((resolve) => (seen = resolve));
  await page.route('**/rest/v1/rpc/commit_machine_ops', (route) => {
    held.push(route);
    seen();
  });
  return {
    first,
    release: async () => {
      await Promise.all(held.splice(0).map((r) => r.continue()));
      await page.unroute('**/rest/v1/rpc/commit_machine_ops');
    },
  };
}

async function rename(page: Page, from: string, to: string) {
  await stateBox(page, from).dblclick();
  const input = page.getByRole('textbox', { name: 'State name' });
  await input.fill(to);
  await input.press('Enter');
  await stateBox(page, to).waitFor();
}

/** The log's length as the owner reads it. */
async function logLength(machineId: string): Promise<number> {
  const read = await createMachinesAdapter(owner).opsSince(machineId, 0);
  if (!read.ok) throw new Error(read.error.message);
  return read.value.length;
}

beforeAll(async () => {
  const [ada, bo] = await Promise.all([signUpPerson('pending', 'Ada'), signUpPerson('pending', 'Bo')]);
  owner = ada.client;
  adaEmail = ada.email;
  boEmail = bo.email;
  projectId = await createProject(ada.client, 'Pending room', [{ id: bo.id, role: 'editor' }]);
}, 240_000);

/** A new machine open in both browsers, synced, and the log's length before anyone edits. */
async function bothOn(name: string) {
  const machineId = await insertMachine(owner, projectId, name, LIGHT);
  const [a, b] = await Promise.all([signIn(adaEmail), signIn(boEmail)]);
  await openMachinePage(app, a.page, projectId, machineId, 'green');
  await openMachinePage(app, b.page, projectId, machineId, 'green');
  await Promise.all([synced(a.page), synced(b.page)]);
  return { machineId, a, b, before: await logLength(machineId) };
}

describe('edits sent ahead of the log', () => {
  it("B shows A's edit while A's append is still held on the network; the log then confirms it", async () => {
    const { machineId, a, b, before } = await bothOn('Light');

    const appends = await holdAppends(a.page);
    await rename(a.page, 'green', 'go');
    await appends.first;
    // A's append has not reached the server, and B shows the edit already.
    await stateBox(b.page, 'go').waitFor();
    expect(await logLength(machineId)).toBe(before);

    await appends.release();
    await synced(a.page);
    expect(await logLength(machineId)).toBe(before + 1);
    expect(await stateBox(b.page, 'go').count()).toBe(1);
    expect(await stateBox(b.page, 'green').count()).toBe(0);
    await Promise.all([a.context.close(), b.context.close()]);
  });

  it('B rolls back an edit whose append never reached the server, and its own edits stay', async () => {
    const { machineId, a, b, before } = await bothOn('Light 2');

    const appends = await holdAppends(a.page);
    await rename(a.page, 'green', 'ghost');
    await appends.first;
    await stateBox(b.page, 'ghost').waitFor();
    // A's tab goes away with its append still on the wire: the server never gets it.
    await a.context.close();
    // B's own edit meanwhile is kept and saved.
    await rename(b.page, 'red', 'stop');
    await synced(b.page);
    // The edit that never landed leaves B's diagram on its own (within B's time-out).
    await stateBox(b.page, 'green').waitFor({ timeout: 60_000 });
    expect(await stateBox(b.page, 'ghost').count()).toBe(0);
    expect(await stateBox(b.page, 'stop').count()).toBe(1);
    expect(await logLength(machineId)).toBe(before + 1);
    await b.context.close();
  });
});

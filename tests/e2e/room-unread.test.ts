import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { stateBox } from './machine-page.ts';
import { pairOnMachine, type PairOnMachine } from './people.ts';

/**
 * The room's unread comments, live, through the real app and backend: Bo waits in the
 * room; Ada starts a thread on the machine that mentions him and Bo's card shows one
 * unread thread and one mention without a reload; Bo opens the machine, where its
 * Comments tab counts the same thread, reads it in the panel, and back in the room the
 * card shows nothing unread.
 */

const app = useBrowserApp({ timeout: 240_000 });
let pair: PairOnMachine;

const DOOR = { id: 'door', initial: 'closed', states: { closed: { on: { OPEN: 'open' } }, open: {} } };
const badge = (page: Page): Locator => page.locator('.machine-card .room-unread');

beforeAll(async () => {
  pair = await pairOnMachine(app, 'unread', ['Ada', 'Bo'], 'Unread room', { name: 'Door', config: DOOR });
  pair.second.page.setDefaultTimeout(20_000);
  await pair.second.page.goto(`${app.url}/p/${pair.projectId}`);
  await pair.second.page.getByRole('link', { name: 'Door', exact: true }).waitFor();
}, 240_000);

describe('unread comments in the room', { timeout: 120_000 }, () => {
  it("shows a new thread that mentions Bo on the machine's card, live", async () => {
    const bo = pair.second.page;
    expect(await badge(bo).count()).toBe(0);
    const started = await pair.first.client.rpc('start_comment_thread', {
      p_machine: pair.machineId,
      p_anchor_kind: 'state',
      p_anchor: 'closed',
      p_body: 'Should @Bo lock it?',
      p_mentions: [pair.second.id],
    });
    expect(started.error).toBeNull();
    const status = bo.getByRole('status', { name: '1 unread comment thread, 1 mention of you on Door' });
    await status.waitFor();
    expect(await status.getAttribute('data-unread-threads')).toBe('1');
    expect(await status.getAttribute('data-unread-mentions')).toBe('1');
  });

  it('counts the same on the machine, and once read there the card shows nothing', async () => {
    const bo = pair.second.page;
    await bo.getByRole('link', { name: 'Door', exact: true }).click();
    await stateBox(bo, 'closed').waitFor();
    const tab = bo.getByRole('group', { name: 'Panels' }).getByRole('button', { name: 'Comments', exact: true });
    await expect.poll(() => tab.locator('[data-unread]').getAttribute('data-unread')).toBe('1');
    // Read in the panel (looked at: the pointer over it).
    await showPanel(bo, 'Comments');
    await bo.getByRole('region', { name: 'Comments' }).hover();
    await tab.locator('[data-unread]').waitFor({ state: 'detached' });
    await bo.goto(`${app.url}/p/${pair.projectId}`);
    await bo.getByRole('link', { name: 'Door', exact: true }).waitFor();
    await badge(bo).waitFor({ state: 'detached' });
    expect(await badge(bo).count()).toBe(0);
  });
});

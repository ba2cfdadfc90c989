import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, stateBox, synced } from './machine-page.ts';
import { createProject, insertMachine, signUpAccount, type Client } from './people.ts';

/**
 * A proposal reviewed and merged while the machine was edited meanwhile, in two browsers,
 * through the real app and backend (the contract: buttons Propose a change, Request
 * review, Approve, Request changes, Merge; a region Proposal on the draft, a region
 * Proposals on the machine). Ada proposes, renames a state in her draft and requests
 * review; Bob (an editor) renames another state of the machine meanwhile, sees the
 * proposal's diff against the machine now, requests changes (Ada asks again), approves
 * and merges (reading Ada's comment on her draft in the proposal's Discussion); both see
 * both renames on the machine and the timeline says Bob merged it. Then a second proposal: Bob reads Ada's
 * draft until she invites him, edits it live with her, and closes it (an editor may).
 */

const app = useBrowserApp({ timeout: 240_000 });
let a: { id: string; client: Client; page: Page };
let b: { id: string; client: Client; page: Page };
let projectId: string;
let machineId: string;

const DOOR = {
  id: 'door',
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
};
const TITLE = 'Call it ajar';

const proposals = (page: Page): Locator => page.getByRole('region', { name: 'Proposals' });
const banner = (page: Page): Locator => page.getByRole('region', { name: 'Proposal', exact: true });
/** The page's own diagram (not a diff drawn in a panel). */
const onCanvas = (page: Page, key: string): Locator =>
  page.locator('.canvas-page').getByRole('button', { name: `state ${key}`, exact: true });

async function rename(page: Page, from: string, to: string) {
  await onCanvas(page, from).dblclick();
  const input = page.getByRole('textbox', { name: 'State name' });
  await input.fill(to);
  await input.press('Enter');
  await onCanvas(page, to).waitFor();
  await synced(page);
}

beforeAll(async () => {
  const [pa, pb] = await Promise.all([signUpAccount('pr-ada', 'Ada'), signUpAccount('pr-bob', 'Bob')]);
  projectId = await createProject(pa.client, 'Proposals room', [{ id: pb.id, role: 'editor' }]);
  machineId = await insertMachine(pa.client, projectId, 'Door', DOOR);
  const viewport = { viewport: { width: 1400, height: 1100 } };
  const [sa, sb] = await Promise.all([app.signIn(pa.email, viewport), app.signIn(pb.email, viewport)]);
  a = { ...pa, page: sa.page };
  b = { ...pb, page: sb.page };
  for (const page of [a.page, b.page]) page.setDefaultTimeout(20_000);
  await Promise.all([a.page, b.page].map((page) => openMachinePage(app, page, projectId, machineId, 'closed')));
  await showPanel(b.page, 'Proposals');
}, 240_000);

describe('a proposal reviewed and merged while the machine moved, two browsers', { timeout: 120_000 }, () => {
  it('Ada proposes a change, edits her draft and requests review', async () => {
    await synced(a.page);
    await a.page.getByRole('button', { name: 'Propose a change' }).click();
    const form = a.page.getByRole('form', { name: 'Propose a change' });
    await form.getByRole('button', { name: 'Start the draft' }).click();
    await form.getByRole('alert').filter({ hasText: 'A proposal needs a title.' }).waitFor();
    await form.getByRole('textbox', { name: 'Title' }).fill(TITLE);
    await form.getByRole('button', { name: 'Start the draft' }).click();
    // The draft's page, forked from the machine as Ada had it.
    await banner(a.page).getByRole('status').filter({ hasText: 'Draft' }).waitFor();
    await banner(a.page).getByText('A proposed change to').getByRole('link', { name: 'Door' }).waitFor();
    expect(a.page.url()).not.toContain(machineId);
    await rename(a.page, 'open', 'ajar');
    // Ada explains it on her draft: the proposal's discussion.
    await onCanvas(a.page, 'ajar').click();
    await a.page.getByRole('button', { name: 'Comment', exact: true }).click();
    const comments = a.page.getByRole('region', { name: 'Comments' });
    await comments.getByRole('combobox', { name: 'New comment' }).fill('Doors rarely open all the way.');
    await comments.getByRole('button', { name: 'Comment', exact: true }).click();
    await comments.getByRole('article').getByText('Doors rarely open all the way.').waitFor();
    // The machine itself is untouched; Bob sees the proposal live.
    await proposals(b.page).getByRole('article', { name: TITLE }).getByText('Draft').waitFor();
    await onCanvas(b.page, 'open').waitFor();

    await banner(a.page).getByRole('button', { name: 'Request review' }).click();
    await banner(a.page).getByRole('status').filter({ hasText: 'In review' }).waitFor();
    expect(await banner(a.page).getByRole('button', { name: 'Request review' }).count()).toBe(0);
  });

  it('Bob edits the machine meanwhile, sees the diff against it now, approves and merges', async () => {
    await rename(b.page, 'closed', 'shut');
    const item = proposals(b.page).getByRole('article', { name: TITLE });
    await item.getByText('In review').waitFor();
    await item.getByRole('button', { name: 'Open' }).click();
    const opened = proposals(b.page).getByRole('article', { name: `Proposal ${TITLE}` });
    const diff = opened.getByRole('region', { name: `Diff ${TITLE} → now` });
    // The diff is drawn on Bob's main canvas, in place of the live chart; the panel has it in words.
    const canvas = b.page.locator('.canvas-page');
    await canvas.locator('[data-state-path="ajar"][data-diff="changed"]').waitFor();
    expect(await opened.locator('svg [data-state-path]').count()).toBe(0);
    // Its discussion (the draft's threads) shows with it, for reviewers to read.
    const discussion = opened.getByRole('region', { name: 'Discussion' });
    await discussion
      .getByRole('article', { name: 'Thread on state ajar' })
      .getByText('Doors rarely open all the way.')
      .waitFor();
    await discussion.getByText('1 thread, 1 open').waitFor();
    // Bob's own rename is the machine now, not part of the proposal.
    await canvas.locator('[data-state-path="shut"]').waitFor();
    expect(await canvas.locator('[data-state-path="shut"][data-diff]').count()).toBe(0);
    // A change picked in the list is selected on the canvas.
    await diff.getByRole('list', { name: 'Changes' }).getByRole('button').first().click();
    await canvas.locator('.st.is-selected[data-state-path="ajar"]').waitFor();
    await expect
      .poll(() => diff.getByRole('list', { name: 'Changes' }).getByRole('listitem').allInnerTexts())
      .toEqual([expect.stringMatching(/^~\s*ajar renamed from open$/)]);

    // A round of changes requested: Ada asks again, and Bob approves.
    await opened.getByRole('button', { name: 'Request changes' }).click();
    await banner(a.page).getByRole('status').filter({ hasText: 'Changes requested' }).waitFor();
    expect(await opened.getByRole('button', { name: 'Merge' }).count()).toBe(0);
    await banner(a.page).getByRole('button', { name: 'Request review' }).click();
    await opened.locator('.proposal-status', { hasText: 'In review' }).waitFor();
    await opened.getByRole('button', { name: 'Approve' }).click();
    await opened.locator('.proposal-status', { hasText: 'Approved' }).waitFor();
    await opened.getByText('Bob requested changes').waitFor();
    await opened.getByText('Bob approved').waitFor();
    await banner(a.page).getByRole('status').filter({ hasText: 'Approved' }).waitFor();

    await opened.getByRole('button', { name: 'Merge' }).click();
    await opened.locator('.proposal-status', { hasText: 'Merged' }).waitFor();
    await opened.getByText(/Merged by Bob/).waitFor();
    expect(await opened.getByRole('button', { name: 'Merge' }).count()).toBe(0);
  });

  it('both see the merged machine, and the timeline says who merged what', async () => {
    for (const key of ['shut', 'ajar']) await onCanvas(b.page, key).waitFor();
    await banner(a.page).getByRole('status').filter({ hasText: 'Merged' }).waitFor();
    await banner(a.page).getByRole('link', { name: 'Door' }).click();
    for (const key of ['shut', 'ajar']) await onCanvas(a.page, key).waitFor();
    expect(await stateBox(a.page, 'open').count()).toBe(0);

    for (const page of [a.page, b.page]) {
      await showPanel(page, 'Timeline');
      await page
        .getByRole('region', { name: 'Timeline' })
        .getByRole('listitem')
        .filter({ hasText: `Bob merged “${TITLE}”: renamed open → ajar` })
        .waitFor();
    }
  });
});

describe('a draft edited by an invitee, then closed, two browsers', { timeout: 120_000 }, () => {
  const SECOND = 'Lock the door';
  let draftUrl: string;

  it('Bob reads Ada’s draft until she invites him, then edits it live with her', async () => {
    await a.page.getByRole('button', { name: 'Propose a change' }).click();
    const form = a.page.getByRole('form', { name: 'Propose a change' });
    await form.getByRole('textbox', { name: 'Title' }).fill(SECOND);
    await form.getByRole('button', { name: 'Start the draft' }).click();
    await banner(a.page).getByText(SECOND).waitFor();
    draftUrl = a.page.url();
    expect(draftUrl).not.toContain(machineId);

    await b.page.goto(draftUrl);
    await banner(b.page).getByText('read-only for you').waitFor();
    await onCanvas(b.page, 'shut').waitFor();
    // Only the author invites; Bob may close (an editor), not invite.
    expect(await banner(b.page).getByRole('button', { name: 'Invite', exact: true }).count()).toBe(0);

    await banner(a.page).getByRole('button', { name: 'Invite', exact: true }).click();
    const invite = a.page.getByRole('region', { name: 'Invite to the draft' });
    await invite.getByRole('button', { name: 'Invite Bob' }).click();
    // Bob is on the draft now: no one is left to invite, and the strip names him.
    await invite.getByText('Every owner and editor of the project is on this draft already.').waitFor();
    await banner(a.page).getByText('with Bob').waitFor();
    await a.page.keyboard.press('Escape');

    // Bob's page turns editable live, and his edit reaches Ada's draft.
    await banner(b.page).getByText('with Bob').waitFor();
    await expect.poll(() => banner(b.page).getByText('read-only for you').count()).toBe(0);
    await rename(b.page, 'shut', 'locked');
    await onCanvas(a.page, 'locked').waitFor();
  });

  it('Bob closes it: the draft turns read-only for both, and the machine lists it closed', async () => {
    await banner(b.page).getByRole('button', { name: 'Close', exact: true }).click();
    await banner(b.page)
      .getByRole('group', { name: 'Close the proposal?' })
      .getByRole('button', { name: 'Close proposal' })
      .click();
    for (const page of [a.page, b.page]) {
      await banner(page).getByRole('status').filter({ hasText: 'Closed' }).waitFor();
      await banner(page).getByText('read-only for you').waitFor();
      expect(await banner(page).getByRole('button', { name: 'Close', exact: true }).count()).toBe(0);
    }
    expect(await banner(a.page).getByRole('button', { name: 'Invite', exact: true }).count()).toBe(0);
    await banner(a.page).getByRole('link', { name: 'Door' }).click();
    await onCanvas(a.page, 'shut').waitFor();
    await showPanel(a.page, 'Proposals');
    await proposals(a.page).getByRole('article', { name: SECOND }).getByText('Closed').waitFor();
  });
});

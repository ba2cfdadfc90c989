import type { BrowserContext, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { showPanel, useBrowserApp } from './harness.ts';
import { openMachinePage, synced } from './machine-page.ts';
import { createProject, insertMachine, signUpAccount, type Client } from './people.ts';

/**
 * A proposal's discussion as a place to talk, through the real app and backend: Ada
 * proposes and requests review, and starts a thread on the whole proposal in its
 * Discussion (the Proposals panel of the machine); Bob, a reviewer, replies there with an
 * @Ada mention; Ada sees the reply live in her discussion and on her draft's Comments
 * panel (the mention found by Mentions me), answers from the draft, and Bob sees that live
 * in his discussion; Ada resolves, Bob sees it Resolved. A viewer comments but has no
 * Merge; a guest reads the discussion with no Reply.
 */

const app = useBrowserApp({ timeout: 240_000 });
const TITLE = 'Lock the door';
const DOOR = {
  id: 'door',
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
};
const viewport = { viewport: { width: 1400, height: 1100 } };

let ada: { id: string; client: Client; context: BrowserContext; draft: Page; machine: Page };
let bob: Page;
let vicEmail: string;
let projectId: string;
let machineId: string;

const discussionOf = (page: Page): Locator =>
  page
    .getByRole('region', { name: 'Proposals' })
    .getByRole('article', { name: `Proposal ${TITLE}` })
    .getByRole('region', { name: 'Discussion' });
const wholeThread = (scope: Locator): Locator => scope.getByRole('article', { name: /^Thread on the whole proposal/ });

/** Opens the machine's Proposals panel on `page` and the proposal in it; its Discussion. */
async function openProposal(page: Page): Promise<Locator> {
  await openMachinePage(app, page, projectId, machineId, 'closed');
  await showPanel(page, 'Proposals');
  const item = page.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: TITLE });
  await item.getByText('In review').waitFor();
  await item.getByRole('button', { name: 'Open' }).click();
  const discussion = discussionOf(page);
  await discussion.waitFor();
  return discussion;
}

beforeAll(async () => {
  const [pa, pb, pv] = await Promise.all([
    signUpAccount('pd-ada', 'Ada'),
    signUpAccount('pd-bob', 'Bob'),
    signUpAccount('pd-vic', 'Vic'),
  ]);
  vicEmail = pv.email;
  projectId = await createProject(pa.client, 'Talk room', [
    { id: pb.id, role: 'editor' },
    { id: pv.id, role: 'viewer' },
  ]);
  machineId = await insertMachine(pa.client, projectId, 'Door', DOOR);
  const [sa, sb] = await Promise.all([app.signIn(pa.email, viewport), app.signIn(pb.email, viewport)]);
  for (const page of [sa.page, sb.page]) page.setDefaultTimeout(20_000);
  ada = { ...pa, context: sa.context, draft: sa.page, machine: sa.page };
  bob = sb.page;
  await openMachinePage(app, ada.draft, projectId, machineId, 'closed');
}, 240_000);

describe("a proposal's discussion, two browsers", { timeout: 150_000 }, () => {
  it('Ada requests review and starts a thread on the whole proposal in its discussion', async () => {
    await synced(ada.draft);
    await ada.draft.getByRole('button', { name: 'Propose a change' }).click();
    const form = ada.draft.getByRole('form', { name: 'Propose a change' });
    await form.getByRole('textbox', { name: 'Title' }).fill(TITLE);
    await form.getByRole('button', { name: 'Start the draft' }).click();
    const banner = ada.draft.getByRole('region', { name: 'Proposal', exact: true });
    await banner.getByRole('button', { name: 'Request review' }).click();
    await banner.getByRole('status').filter({ hasText: 'In review' }).waitFor();
    await showPanel(ada.draft, 'Comments');

    // Ada's second tab: the machine, its Proposals panel, the proposal opened.
    ada.machine = await ada.context.newPage();
    ada.machine.setDefaultTimeout(20_000);
    const discussion = await openProposal(ada.machine);
    await discussion.getByText('no threads yet').waitFor();
    await discussion.getByRole('button', { name: 'New thread' }).click();
    await discussion.getByText('New thread on the whole proposal').waitFor();
    const first = discussion.getByRole('combobox', { name: 'New comment' });
    // An empty comment is not sent.
    expect(await discussion.getByRole('button', { name: 'Comment', exact: true }).isDisabled()).toBe(true);
    await first.fill('Ready for a look.');
    await discussion.getByRole('button', { name: 'Comment', exact: true }).click();
    await wholeThread(discussion).getByText('Ready for a look.').waitFor();
    await discussion.getByText('1 thread, 1 open').waitFor();
  });

  it('Bob replies in his discussion with an @Ada mention; Ada sees it live there and on her draft', async () => {
    const discussion = await openProposal(bob);
    const thread = wholeThread(discussion);
    await thread.getByText('Ready for a look.').waitFor();
    await thread.getByRole('button', { name: 'Reply' }).click();
    const reply = thread.getByRole('combobox', { name: 'Reply' });
    const send = thread.getByRole('button', { name: 'Send reply' });
    expect(await send.isDisabled()).toBe(true);
    // Past 10,000 characters it is refused before it is sent.
    await reply.fill('x'.repeat(10_001));
    await thread.getByText('1 characters too long').waitFor();
    expect(await send.isDisabled()).toBe(true);
    await reply.fill('');
    await reply.pressSequentially('@Ad');
    await thread.getByRole('listbox', { name: 'Members to mention' }).getByRole('option', { name: '@Ada' }).click();
    await reply.pressSequentially('looks right, ship it');
    expect(await reply.inputValue()).toBe('@Ada looks right, ship it');
    await send.click();
    await thread.getByText('@Ada looks right, ship it').waitFor();

    // Live for Ada: in her discussion, and on her draft's Comments panel, as a mention of her.
    await wholeThread(discussionOf(ada.machine)).getByText('@Ada looks right, ship it').waitFor();
    const comments = ada.draft.getByRole('region', { name: 'Comments' });
    await comments.getByRole('article').getByText('@Ada looks right, ship it').waitFor();
    await comments.getByRole('button', { name: 'Mentions me' }).click();
    await comments.getByRole('article').getByText('Ready for a look.').waitFor();
    await comments.getByRole('button', { name: 'Mentions me' }).click();

    // And the other way: Ada answers on the draft, Bob reads it in his discussion.
    const onDraft = comments.getByRole('article').filter({ hasText: 'Ready for a look.' });
    await onDraft.getByRole('button', { name: 'Reply' }).click();
    await onDraft.getByRole('combobox', { name: 'Reply' }).fill('Thanks, merging once Vic has looked.');
    await onDraft.getByRole('button', { name: 'Send reply' }).click();
    await thread.getByText('Thanks, merging once Vic has looked.').waitFor();
  });

  it('Ada resolves the thread in her discussion and Bob sees it resolved', async () => {
    const thread = wholeThread(discussionOf(ada.machine));
    await thread.getByRole('button', { name: 'Resolve' }).click();
    await thread.getByRole('button', { name: 'Reopen' }).waitFor();
    const bobs = wholeThread(discussionOf(bob));
    await bobs.getByText('Resolved', { exact: true }).waitFor();
    await bobs.getByRole('button', { name: 'Reopen' }).waitFor();
    await discussionOf(bob).getByText('1 thread, 0 open').waitFor();
  });

  it('a viewer comments in the discussion but has no Merge; a guest reads it with no Reply', async () => {
    const vic = (await app.signIn(vicEmail, viewport)).page;
    vic.setDefaultTimeout(20_000);
    const discussion = await openProposal(vic);
    const thread = wholeThread(discussion);
    await thread.getByText('Thanks, merging once Vic has looked.').waitFor();
    const opened = vic.getByRole('region', { name: 'Proposals' }).getByRole('article', { name: `Proposal ${TITLE}` });
    expect(await opened.getByRole('button', { name: 'Merge' }).count()).toBe(0);
    expect(await opened.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await thread.getByRole('button', { name: 'Reply' }).click();
    await thread.getByRole('combobox', { name: 'Reply' }).fill('Looked. Fine by me.');
    await thread.getByRole('button', { name: 'Send reply' }).click();
    await wholeThread(discussionOf(bob)).getByText('Looked. Fine by me.').waitFor();

    // A guest, by the project's share link.
    const made = await ada.client.from('projects').update({ visibility: 'public' }).eq('id', projectId);
    if (made.error) throw new Error(made.error.message);
    const token = await ada.client
      .rpc('owned_share_tokens', { p_project: projectId })
      .single<{ share_token: string }>();
    if (token.error) throw new Error(token.error.message);
    const guest = await app.newPage(viewport);
    guest.setDefaultTimeout(20_000);
    await guest.goto(`${app.url}/s/${token.data.share_token}`);
    await guest.getByRole('button', { name: 'Continue as guest' }).click();
    await guest.waitForURL(`**/p/${projectId}`);
    const read = await openProposal(guest);
    await wholeThread(read).getByText('Looked. Fine by me.').waitFor();
    await read.getByText('Guests read the discussion; members write in it.').waitFor();
    expect(await read.getByRole('button', { name: 'Reply' }).count()).toBe(0);
    expect(await read.getByRole('button', { name: 'New thread' }).count()).toBe(0);
  });
});

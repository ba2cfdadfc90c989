import { describe, expect, it } from 'vitest';
import { comment, thread } from './comments.fakes.ts';
import { door, loaded, ok, opened, proposal, renamed, settle, start, stepped } from './proposals.fakes.ts';

/**
 * The proposals machine's promises beyond its paths: a draft tells the open machine who
 * may edit it, and says so again when the proposal changes; Propose a change forks at the
 * head the document applied and names the draft to open; a merge keeps what did not land.
 */

describe('proposals machine', () => {
  it('tells the open machine a draft is editable for its author only, until it is merged', async () => {
    const mine = proposal('p1', 'draft', { draftId: 'm-1', machineId: 'm-target', author: 'u-ada' });
    const ada = start({ userId: 'u-ada' });
    await ada.held.settle('loadProposals', loaded([], mine));
    expect(ada.edited).toEqual([{ type: 'machine.draftChanged', editable: true }]);
    ada.facts.next({ type: 'proposals.changed', proposal: { ...mine, status: 'merged' } });
    await settle();
    expect(ada.edited.at(-1)).toEqual({ type: 'machine.draftChanged', editable: false });

    const bob = start({ userId: 'u-bob' });
    await bob.held.settle('loadProposals', loaded([], mine));
    expect(bob.edited).toEqual([{ type: 'machine.draftChanged', editable: false }]);
    // Invited, Bob edits too.
    bob.facts.next({ type: 'proposals.changed', proposal: { ...mine, collaborators: ['u-bob'] } });
    await settle();
    expect(bob.edited.at(-1)).toEqual({ type: 'machine.draftChanged', editable: true });
  });

  it('forks at the head the document applied, and names the draft made', async () => {
    const f = start({ userId: 'u-ada' });
    await f.held.settle('loadProposals', loaded([]));
    f.actor.send({ type: 'proposals.headMoved', version: 7, definition: door });
    f.actor.send({ type: 'proposals.propose', title: '  Retry twice ' });
    await settle();
    expect(f.held.calls.at(-1)).toEqual({
      name: 'step',
      input: { kind: 'propose', machineId: 'm-1', title: 'Retry twice', definition: door, baseSeq: 7 },
    });
    const made = proposal('p9', 'draft', { title: 'Retry twice' });
    await f.held.settle('step', stepped(made));
    expect(f.actor.getSnapshot().context.created).toEqual(made);
    expect(f.actor.getSnapshot().context.proposals).toEqual([made]);
    expect(f.edited).toEqual([]);
  });

  it('names the draft made even when its row arrived live before the answer', async () => {
    const f = start({ userId: 'u-ada' });
    await f.held.settle('loadProposals', loaded([]));
    f.actor.send({ type: 'proposals.headMoved', version: 3, definition: door });
    f.actor.send({ type: 'proposals.propose', title: 'Raced' });
    await settle();
    const made = proposal('p8', 'draft', { title: 'Raced' });
    f.facts.next({ type: 'proposals.changed', proposal: made });
    await settle();
    await f.held.settle('step', stepped(made));
    expect(f.actor.getSnapshot().context.created).toEqual(made);
  });

  it('keeps what a merge did not land, and the merged proposal', async () => {
    const p = proposal('p1', 'approved');
    const f = start();
    await f.held.settle('loadProposals', loaded([p]));
    f.actor.send({ type: 'proposals.merge', id: 'p1' });
    await settle();
    expect(f.held.calls.at(-1)).toEqual({ name: 'step', input: { kind: 'merge', proposal: p } });
    const notApplied = [
      { index: 0, op: { type: 'state.delete' as const, id: 's_gone' }, reason: 'no such state', mended: false },
    ];
    const merged = { ...p, status: 'merged' as const, mergedBy: 'u-bob', mergedFirstSeq: 5, mergedLastSeq: 5 };
    await f.held.settle('step', ok({ proposal: merged, notApplied }));
    expect(f.actor.getSnapshot().context.merged).toEqual({ proposal: merged, notApplied });
    expect(f.actor.getSnapshot().context.proposals).toEqual([merged]);
    expect(f.actor.getSnapshot().context.created).toBeNull();
  });

  it('keeps a live change of the proposal shown, and reads what it changes again', async () => {
    const p = proposal('p1', 'changes_requested');
    const f = start();
    await f.held.settle('loadProposals', loaded([p]));
    f.actor.send({ type: 'proposals.open', id: 'p1' });
    await settle();
    await f.held.settle('openProposal', opened);
    const asked = {
      ...p,
      status: 'in_review' as const,
      updatedAt: new Date(Date.UTC(2026, 10, 27, 12, 5)).toISOString(),
    };
    f.facts.next({ type: 'proposals.changed', proposal: asked });
    await settle();
    expect(f.actor.getSnapshot().context.proposals).toEqual([asked]);
    expect(f.held.isOpen('openProposal')).toBe(true);
    // An older copy arriving late changes nothing.
    f.facts.next({ type: 'proposals.changed', proposal: p });
    await settle();
    expect(f.actor.getSnapshot().context.proposals).toEqual([asked]);
  });

  it("draws an opened proposal's diff on the person's canvas, and shows now again when it is hidden", async () => {
    const f = start();
    await f.held.settle('loadProposals', loaded([proposal('p1', 'in_review')]));
    f.actor.send({ type: 'proposals.open', id: 'p1' });
    await settle();
    await f.held.settle('openProposal', opened);
    expect(f.edited.at(-1)).toMatchObject({ type: 'view.diff', label: `${proposal('p1', 'in_review').title} → now` });
    expect(f.edited.at(-1)).toMatchObject({ before: door, after: renamed });
    f.actor.send({ type: 'proposals.hide' });
    expect(f.edited.at(-1)).toEqual({ type: 'view.close' });
  });

  it("invites to the author's draft and tells the open machine; a close locks it for everyone", async () => {
    const mine = proposal('p1', 'draft', { draftId: 'm-1', machineId: 'm-target', author: 'u-ada' });
    const ada = start({ userId: 'u-ada' });
    await ada.held.settle('loadProposals', loaded([], mine));
    ada.actor.send({ type: 'proposals.invite', id: 'p1', userId: 'u-bob' });
    await settle();
    expect(ada.held.calls.at(-1)).toEqual({ name: 'step', input: { kind: 'invite', proposal: mine, userId: 'u-bob' } });
    const invited = {
      ...mine,
      collaborators: ['u-bob'],
      updatedAt: new Date(Date.UTC(2026, 10, 27, 12, 1)).toISOString(),
    };
    await ada.held.settle('step', stepped(invited));
    expect(ada.actor.getSnapshot().context.draftOf).toEqual(invited);
    // An invite answers no new draft to open.
    expect(ada.actor.getSnapshot().context.created).toBeNull();
    expect(ada.edited.at(-1)).toEqual({ type: 'machine.draftChanged', editable: true });

    ada.actor.send({ type: 'proposals.close', id: 'p1' });
    await settle();
    expect(ada.held.calls.at(-1)).toEqual({ name: 'step', input: { kind: 'close', proposal: invited } });
    const closed = {
      ...invited,
      status: 'closed' as const,
      updatedAt: new Date(Date.UTC(2026, 10, 27, 12, 2)).toISOString(),
    };
    await ada.held.settle('step', stepped(closed));
    expect(ada.edited.at(-1)).toEqual({ type: 'machine.draftChanged', editable: false });
    // An invite of someone to a proposal it does not know is not taken.
    ada.actor.send({ type: 'proposals.invite', id: 'nope', userId: 'u-bob' });
    expect(ada.actor.getSnapshot().matches({ step: 'idle' })).toBe(true);
  });

  it("opens a proposal's discussion on its draft, live, where a member replies and resolves; a re-read keeps it", async () => {
    const f = start();
    await f.held.settle('loadProposals', loaded([proposal('p1', 'in_review'), proposal('p2', 'draft')]));
    expect(f.actor.getSnapshot().children.discussion).toBeUndefined();
    f.actor.send({ type: 'proposals.open', id: 'p1' });
    await settle();
    const talk = f.actor.getSnapshot().children.discussion;
    expect(talk?.getSnapshot().context).toMatchObject({ machineId: 'draft-p1', userId: 'u-bob', canComment: true });
    // It reads the draft's threads, and hears the draft's comment channel.
    expect(f.talk.held.calls.at(-1)).toEqual({ name: 'listComments', input: { machineId: 'draft-p1' } });
    const t1 = thread('t1', { machineId: 'draft-p1' });
    await f.talk.held.settle('listComments', ok({ threads: [t1], comments: [comment('c1', 't1')] }));
    f.talk.facts.next({ type: 'comments.commentChanged', comment: comment('c2', 't1', { body: '@Ada ok?' }) });
    await settle();
    expect(talk?.getSnapshot().context.comments.map((c) => c.id)).toEqual(['c1', 'c2']);
    // A reply and a resolve go to the draft's comments.
    talk?.send({ type: 'comments.reply', threadId: 't1', body: 'Yes', mentions: ['u-bo'] });
    expect(f.talk.held.calls.at(-1)).toEqual({
      name: 'send',
      input: { kind: 'reply', machineId: 'draft-p1', threadId: 't1', body: 'Yes', mentions: ['u-bo'] },
    });
    await f.talk.held.settle('send', ok({ comment: comment('c3', 't1', { body: 'Yes' }) }));
    talk?.send({ type: 'comments.resolve', threadId: 't1' });
    await f.talk.held.settle('send', ok({ thread: { ...t1, resolvedAt: '2026-11-27T10:05:00Z' } }));
    expect(talk?.getSnapshot().context.threads[0]?.resolvedAt).toBe('2026-11-27T10:05:00Z');
    // A change of the proposal reads it again; the discussion goes on (not read again).
    await f.held.settle('openProposal', opened);
    f.facts.next({
      type: 'proposals.changed',
      proposal: { ...proposal('p1', 'approved'), updatedAt: new Date(Date.UTC(2026, 10, 27, 12, 3)).toISOString() },
    });
    await settle();
    expect(f.actor.getSnapshot().hasTag('reading')).toBe(true);
    expect(f.actor.getSnapshot().children.discussion).toBe(talk);
    expect(f.talk.held.isOpen('listComments')).toBe(false);
    // Another proposal opened: its own draft's discussion.
    f.actor.send({ type: 'proposals.open', id: 'p2' });
    await settle();
    expect(f.actor.getSnapshot().children.discussion?.getSnapshot().context.machineId).toBe('draft-p2');
    await f.held.settle('openProposal', opened);
    f.actor.send({ type: 'proposals.hide' });
    expect(f.actor.getSnapshot().children.discussion).toBeUndefined();
  });

  it("passes who comments to the discussion: a guest's reply and new thread are not taken", async () => {
    const f = start({ canComment: false });
    await f.held.settle('loadProposals', loaded([proposal('p1', 'in_review')]));
    f.actor.send({ type: 'proposals.open', id: 'p1' });
    await settle();
    const talk = f.actor.getSnapshot().children.discussion;
    await f.talk.held.settle('listComments', ok({ threads: [thread('t1')], comments: [] }));
    talk?.send({ type: 'comments.compose', anchor: { kind: 'state', value: 'root' } });
    talk?.send({ type: 'comments.reply', threadId: 't1', body: 'Hi', mentions: [] });
    expect(talk?.getSnapshot().context.composing).toBeNull();
    expect(f.talk.held.isOpen('send')).toBe(false);
    // Made a member (the room says so): it may now.
    f.actor.send({ type: 'proposals.canCommentChanged', canComment: true });
    expect(talk?.getSnapshot().context.canComment).toBe(true);
    talk?.send({ type: 'comments.reply', threadId: 't1', body: 'x'.repeat(10_001), mentions: [] });
    // The server's refusal (too long) is shown in the discussion.
    await f.talk.held.settle('send', {
      ok: false,
      error: { code: '22023', message: 'a comment is 1 to 10,000 characters (this one has 10001)' },
    });
    expect(talk?.getSnapshot().context.error).toBe('a comment is 1 to 10,000 characters (this one has 10001)');
  });
});

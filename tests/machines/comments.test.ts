import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { commentsLogic } from '../../src/app/comments.ts';
import { unread } from '../../src/lib/comments/threads.ts';
import type { Comment, CommentThread, CommentsPort, CommentsStreamEvent } from '../../src/lib/ports/comments.ts';
import { BO, comment, MACHINE, ME, thread } from './comments.fakes.ts';

/**
 * The comments machine over a fake port: the list read, rows heard live merged (a newer
 * copy wins, an older one never replaces it), a thread started on the anchor composed,
 * replies, edits, deletes and resolves as one request at a time, refusals shown in words,
 * nothing sent by someone who may not comment, and what counts as unread.
 */

function fakePort(
  initial: { threads: CommentThread[]; comments: Comment[]; readAt?: string | null } = { threads: [], comments: [] },
) {
  const stream = new Subject<CommentsStreamEvent>();
  const calls: { name: string; args: unknown[] }[] = [];
  let refuse: string | null = null;
  let n = 0;
  const answer = <T>(name: string, args: unknown[], value: () => T) => {
    calls.push({ name, args });
    return Promise.resolve(
      refuse
        ? { ok: false as const, error: { code: 'invalid', message: refuse } }
        : { ok: true as const, value: value() },
    );
  };
  const port: CommentsPort = {
    list: () => Promise.resolve({ ok: true, value: initial }),
    markRead: (machineId, userId, readAt) => answer('markRead', [machineId, userId, readAt], () => null),
    startThread: (r) =>
      answer('startThread', [r], () => {
        n += 1;
        const t = thread(`t-new-${n}`, { anchor: r.anchor, createdBy: ME, createdAt: '2026-11-27T11:00:00Z' });
        return {
          thread: t,
          comment: comment(`c-new-${n}`, t.id, {
            body: r.body,
            mentions: r.mentions,
            author: ME,
            createdAt: '2026-11-27T11:00:00Z',
          }),
        };
      }),
    reply: (r) =>
      answer('reply', [r], () =>
        comment(`c-r-${++n}`, r.threadId, { body: r.body, author: ME, createdAt: '2026-11-27T12:00:00Z' }),
      ),
    edit: (r) =>
      answer('edit', [r], () =>
        comment(r.commentId, 't-1', { body: r.body, author: ME, editedAt: '2026-11-27T13:00:00Z' }),
      ),
    remove: (id) =>
      answer('remove', [id], () => comment(id, 't-1', { body: '', author: ME, deletedAt: '2026-11-27T14:00:00Z' })),
    resolve: (id, resolved) =>
      answer('resolve', [id, resolved], () =>
        thread(
          id,
          resolved
            ? { resolvedAt: '2026-11-27T15:00:00Z', resolvedBy: ME, updatedAt: '2026-11-27T15:00:00Z' }
            : { updatedAt: '2026-11-27T16:00:00Z' },
        ),
      ),
    changes$: () => stream,
  };
  return { port, stream, calls, refuseWith: (m: string | null) => (refuse = m) };
}

async function started(fake = fakePort(), canComment = true) {
  const actor = createActor(commentsLogic(fake.port), {
    input: { machineId: MACHINE, userId: ME, canComment },
  }).start();
  await waitFor(actor, (s) => s.matches({ list: 'live' }));
  return actor;
}
const idle = (actor: Awaited<ReturnType<typeof started>>) =>
  waitFor(actor, (s) => s.matches({ requests: 'idle' }) && !s.hasTag('busy'));

describe('comments machine', () => {
  it('reads the list, then merges rows heard live: a newer copy wins, an older one does not', async () => {
    const fake = fakePort({ threads: [thread('t-1')], comments: [comment('c-1', 't-1')] });
    const actor = await started(fake);
    expect(actor.getSnapshot().context.threads.map((t) => t.id)).toEqual(['t-1']);
    fake.stream.next({
      type: 'comments.commentChanged',
      comment: comment('c-1', 't-1', { body: 'edited', editedAt: '2026-11-27T10:05:00Z' }),
    });
    fake.stream.next({ type: 'comments.commentChanged', comment: comment('c-1', 't-1', { body: 'stale' }) });
    fake.stream.next({
      type: 'comments.commentChanged',
      comment: comment('c-2', 't-1', { createdAt: '2026-11-27T10:01:00Z' }),
    });
    const { comments, seenAt } = actor.getSnapshot().context;
    expect(comments.map((c) => [c.id, c.body])).toEqual([
      ['c-1', 'edited'],
      ['c-2', 'body c-2'],
    ]);
    // What was there when the list was first read counts as seen; the newer reply does not.
    expect(seenAt).toBe('2026-11-27T10:00:00Z');
    actor.send({ type: 'comments.markRead' });
    expect(actor.getSnapshot().context.seenAt).toBe('2026-11-27T10:01:00Z');
    // Kept, so it survives a reload.
    expect(fake.calls.filter((c) => c.name === 'markRead').map((c) => c.args)).toEqual([
      [MACHINE, ME, '2026-11-27T10:01:00Z'],
    ]);
  });

  it('counts from the stored read mark when there is one: what came after it is unread after a reload', async () => {
    const old = comment('c-1', 't-1', { author: BO, createdAt: '2026-11-27T10:00:00Z' });
    const newer = comment('c-2', 't-1', { author: BO, createdAt: '2026-11-27T10:02:00Z' });
    const fake = fakePort({ threads: [thread('t-1')], comments: [old, newer], readAt: '2026-11-27T10:01:00Z' });
    const actor = await started(fake);
    const { comments, userId, seenAt } = actor.getSnapshot().context;
    expect(seenAt).toBe('2026-11-27T10:01:00Z');
    expect(unread(comments, userId, seenAt)).toEqual({ threads: 1, mentions: 0 });
  });

  it('starts a thread on the anchor composed, and reads the list again after a rejoin', async () => {
    const fake = fakePort();
    const actor = await started(fake);
    // Nothing was there when the list was read: whatever others write from now on is new.
    expect(actor.getSnapshot().context.seenAt).toBe('');
    fake.stream.next({
      type: 'comments.commentChanged',
      comment: comment('c-bo', 't-bo', { createdAt: '2026-11-27T09:00:00Z' }),
    });
    expect(unread(actor.getSnapshot().context.comments, ME, actor.getSnapshot().context.seenAt)).toEqual({
      threads: 1,
      mentions: 0,
    });
    actor.send({ type: 'comments.start', body: 'nothing composed', mentions: [] });
    expect(fake.calls).toEqual([]);
    actor.send({ type: 'comments.compose', anchor: { kind: 'transition', value: 't_pay' } });
    actor.send({ type: 'comments.start', body: 'why three retries, @Bo?', mentions: [BO] });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await idle(actor);
    expect(fake.calls[0]).toMatchObject({
      name: 'startThread',
      args: [
        {
          machineId: MACHINE,
          anchor: { kind: 'transition', value: 't_pay' },
          body: 'why three retries, @Bo?',
          mentions: [BO],
        },
      ],
    });
    const ctx = actor.getSnapshot().context;
    expect(ctx.composing).toBeNull();
    expect(ctx.threads.find((t) => t.id === 't-new-1')?.anchor).toEqual({ kind: 'transition', value: 't_pay' });
    expect(ctx.comments.map((c) => c.body)).toContain('why three retries, @Bo?');
    fake.stream.next({ type: 'comments.subscribed' });
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    await waitFor(actor, (s) => s.matches({ list: 'live' }));
    // The row read again keeps what was heard meanwhile.
    expect(actor.getSnapshot().context.threads).toHaveLength(1);
  });

  it('starts a thread on a timeline entry or a step, and goes to such an anchor (once more each time); not to a state', async () => {
    const fake = fakePort();
    const actor = await started(fake);
    actor.send({ type: 'comments.compose', anchor: { kind: 'timeline', value: '42' } });
    expect(actor.getSnapshot().context.composing).toEqual({ kind: 'timeline', value: '42' });
    actor.send({ type: 'comments.start', body: 'why this rename?', mentions: [] });
    await idle(actor);
    actor.send({ type: 'comments.compose', anchor: { kind: 'step', value: 'run-1:3' } });
    actor.send({ type: 'comments.start', body: 'stuck here', mentions: [] });
    await idle(actor);
    expect(fake.calls.map((c) => (c.args[0] as { anchor: unknown }).anchor)).toEqual([
      { kind: 'timeline', value: '42' },
      { kind: 'step', value: 'run-1:3' },
    ]);
    expect(actor.getSnapshot().context.threads.map((t) => t.anchor.kind)).toEqual(['timeline', 'step']);

    expect(actor.getSnapshot().context.wentTo).toBeNull();
    actor.send({ type: 'comments.goToAnchor', anchor: { kind: 'timeline', value: '42' } });
    expect(actor.getSnapshot().context.wentTo).toEqual({ anchor: { kind: 'timeline', value: '42' }, times: 1 });
    actor.send({ type: 'comments.goToAnchor', anchor: { kind: 'timeline', value: '42' } });
    expect(actor.getSnapshot().context.wentTo?.times).toBe(2);
    actor.send({ type: 'comments.goToAnchor', anchor: { kind: 'state', value: 's_paying' } });
    expect(actor.getSnapshot().context.wentTo).toEqual({ anchor: { kind: 'timeline', value: '42' }, times: 2 });
    actor.send({ type: 'comments.goToAnchor', anchor: { kind: 'step', value: 'run-1:3' } });
    expect(actor.getSnapshot().context.wentTo).toEqual({ anchor: { kind: 'step', value: 'run-1:3' }, times: 3 });
  });

  it('comment mode: waits for a point, which composes a thread there; a guest never enters it', async () => {
    const fake = fakePort();
    const actor = await started(fake);
    actor.send({ type: 'comments.place' });
    expect(actor.getSnapshot().context.placing).toBe(true);
    actor.send({ type: 'comments.cancelPlace' });
    expect(actor.getSnapshot().context.placing).toBe(false);
    actor.send({ type: 'comments.place' });
    actor.send({ type: 'comments.compose', anchor: { kind: 'point', value: '120,-40' } });
    expect(actor.getSnapshot().context).toMatchObject({
      placing: false,
      composing: { kind: 'point', value: '120,-40' },
    });
    actor.send({ type: 'comments.start', body: 'Here', mentions: [] });
    await idle(actor);
    expect(fake.calls.at(-1)).toMatchObject({ name: 'startThread' });
    expect(JSON.stringify(fake.calls.at(-1))).toContain('120,-40');

    const guest = await started(fakePort(), false);
    guest.send({ type: 'comments.place' });
    expect(guest.getSnapshot().context.placing).toBe(false);
  });

  it('replies, edits, deletes, resolves and reopens, one request at a time', async () => {
    const fake = fakePort({ threads: [thread('t-1')], comments: [comment('c-1', 't-1', { author: ME })] });
    const actor = await started(fake);
    actor.send({ type: 'comments.reply', threadId: 't-1', body: 'because', mentions: [] });
    actor.send({ type: 'comments.resolve', threadId: 't-1' });
    await idle(actor);
    expect(fake.calls.map((c) => c.name)).toEqual(['reply']);
    actor.send({ type: 'comments.edit', commentId: 'c-1', body: 'better words', mentions: [] });
    await idle(actor);
    actor.send({ type: 'comments.delete', commentId: 'c-1' });
    await idle(actor);
    actor.send({ type: 'comments.resolve', threadId: 't-1' });
    await idle(actor);
    let ctx = actor.getSnapshot().context;
    expect(ctx.comments.find((c) => c.id === 'c-1')).toMatchObject({ body: '', deletedAt: '2026-11-27T14:00:00Z' });
    expect(ctx.threads[0]).toMatchObject({ resolvedBy: ME });
    actor.send({ type: 'comments.reopen', threadId: 't-1' });
    await idle(actor);
    ctx = actor.getSnapshot().context;
    expect(ctx.threads[0]?.resolvedAt).toBeNull();
    expect(fake.calls.map((c) => c.name)).toEqual(['reply', 'edit', 'remove', 'resolve', 'resolve']);
    expect(fake.calls.slice(3).map((c) => c.args[1])).toEqual([true, false]);
  });

  it('shows a refusal in words and clears it on the next attempt', async () => {
    const fake = fakePort({ threads: [thread('t-1')], comments: [] });
    const actor = await started(fake);
    fake.refuseWith("Couldn't reply: a comment is 1 to 10,000 characters (this one has 10001).");
    actor.send({ type: 'comments.reply', threadId: 't-1', body: 'x'.repeat(10_001), mentions: [] });
    await idle(actor);
    expect(actor.getSnapshot().context.error).toBe(
      "Couldn't reply: a comment is 1 to 10,000 characters (this one has 10001).",
    );
    expect(actor.getSnapshot().context.comments).toEqual([]);
    fake.refuseWith(null);
    actor.send({ type: 'comments.reply', threadId: 't-1', body: 'short', mentions: [] });
    expect(actor.getSnapshot().context.error).toBeNull();
    await idle(actor);
    expect(actor.getSnapshot().context.comments.map((c) => c.body)).toEqual(['short']);
  });

  it('sends nothing for someone who may not comment, until the room says they may', async () => {
    const fake = fakePort({ threads: [thread('t-1')], comments: [] });
    const actor = await started(fake, false);
    actor.send({ type: 'comments.compose', anchor: { kind: 'state', value: 's_cart' } });
    actor.send({ type: 'comments.reply', threadId: 't-1', body: 'hi', mentions: [] });
    actor.send({ type: 'comments.resolve', threadId: 't-1' });
    expect(actor.getSnapshot().context.composing).toBeNull();
    expect(fake.calls).toEqual([]);
    actor.send({ type: 'comments.canCommentChanged', canComment: true });
    actor.send({ type: 'comments.reply', threadId: 't-1', body: 'hi', mentions: [] });
    await idle(actor);
    expect(fake.calls.map((c) => c.name)).toEqual(['reply']);
  });

  it('keeps the panel filters', async () => {
    const actor = await started();
    actor.send({ type: 'comments.show', show: 'resolved' });
    actor.send({ type: 'comments.toggleMentionsMe' });
    expect(actor.getSnapshot().context).toMatchObject({ show: 'resolved', mentionsMe: true });
    // Composing shows the open threads, where the new one will be.
    actor.send({ type: 'comments.compose', anchor: { kind: 'point', value: '10,20' } });
    expect(actor.getSnapshot().context).toMatchObject({ show: 'open', composing: { kind: 'point', value: '10,20' } });
  });

  it('brings a thread forward (its pin chosen): shown whatever the filters, once more each time; an unknown one is ignored', async () => {
    const open = thread('t-open');
    const done = thread('t-done', { resolvedAt: '2026-11-27T12:00:00Z', resolvedBy: BO });
    const actor = await started(fakePort({ threads: [open, done], comments: [] }));
    actor.send({ type: 'comments.toggleMentionsMe' });
    actor.send({ type: 'comments.focus', threadId: 't-done' });
    expect(actor.getSnapshot().context).toMatchObject({
      focused: { threadId: 't-done', times: 1 },
      show: 'resolved',
      mentionsMe: false,
    });
    actor.send({ type: 'comments.focus', threadId: 't-open' });
    actor.send({ type: 'comments.focus', threadId: 't-open' });
    expect(actor.getSnapshot().context).toMatchObject({ focused: { threadId: 't-open', times: 3 }, show: 'open' });
    actor.send({ type: 'comments.focus', threadId: 'nope' });
    expect(actor.getSnapshot().context.focused).toEqual({ threadId: 't-open', times: 3 });
  });
});

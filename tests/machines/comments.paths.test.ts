import { createActor, type SnapshotFrom } from 'xstate';
import {
  commentsMachine,
  type CommentsInput,
  type CommentsIntent,
} from '../../machines/open-machine/comments.machine.ts';
import type { Comment, CommentsStreamEvent } from '../../src/lib/ports/comments.ts';
import { comment, heldComments, MACHINE, ME, settle, thread } from './comments.fakes.ts';
import { describeMachinePaths, settleRequest, type MachinePaths } from './machine-paths.ts';

/**
 * Path tests for the comments machine: every state node reached, every shortest path and
 * every edge replayed on the running machine with fake actors (the list and each request
 * settled, rows and rejoins pushed as facts, intents sent). At most two threads and two
 * comments, and the panel's filters and the room's say changed from a quiet panel only,
 * so the graph is finite.
 */

type Event = CommentsIntent | CommentsStreamEvent;
type Snapshot = SnapshotFrom<typeof commentsMachine>;
type GraphEvent = Event | { type: string; output?: unknown; error?: unknown };

const T1 = thread('t-1');
const C1 = comment('c-1', 't-1');
const AT = '2026-11-27T11:00:00Z';
const FACTS = new Set(['comments.threadChanged', 'comments.commentChanged', 'comments.subscribed']);
const ok = <T>(value: T) => ({ ok: true, value });
const refused = (message: string) => ({ ok: false, error: { code: 'invalid', message } });

const events: GraphEvent[] = [
  { type: 'xstate.done.actor.listComments', output: ok({ threads: [T1], comments: [C1] }) },
  { type: 'xstate.done.actor.listComments', output: refused('Not a member.') },
  { type: 'xstate.error.actor.listComments', error: new Error('listComments crashed') },
  // A thread started (its first comment is this person's), or one comment changed (a reply, an edit, a delete).
  {
    type: 'xstate.done.actor.send',
    output: ok({
      thread: thread('t-new', { createdBy: ME, createdAt: AT, updatedAt: AT }),
      comment: comment('c-new', 't-new', { author: ME, createdAt: AT }),
    }),
  },
  { type: 'xstate.done.actor.send', output: ok({ comment: comment('c-1', 't-1', { editedAt: AT, body: 'better' }) }) },
  { type: 'xstate.done.actor.send', output: refused('A comment is 1 to 10,000 characters.') },
  { type: 'xstate.error.actor.send', error: new Error('send crashed') },
  { type: 'comments.threadChanged', thread: thread('t-2', { createdAt: '2026-11-27T10:01:00Z' }) },
  { type: 'comments.commentChanged', comment: comment('c-2', 't-1', { createdAt: '2026-11-27T10:01:00Z' }) },
  { type: 'comments.subscribed' },
  { type: 'comments.compose', anchor: { kind: 'transition', value: 't_pay' } },
  { type: 'comments.cancelCompose' },
  { type: 'comments.compose', anchor: { kind: 'timeline', value: '42' } },
  { type: 'comments.goToAnchor', anchor: { kind: 'timeline', value: '42' } },
  { type: 'comments.start', body: 'why three retries?', mentions: [] },
  { type: 'comments.reply', threadId: 't-1', body: 'because', mentions: [] },
  { type: 'comments.edit', commentId: 'c-1', body: 'better', mentions: [] },
  { type: 'comments.delete', commentId: 'c-1' },
  { type: 'comments.resolve', threadId: 't-1' },
  { type: 'comments.reopen', threadId: 't-1' },
  { type: 'comments.show', show: 'resolved' },
  { type: 'comments.show', show: 'open' },
  { type: 'comments.toggleMentionsMe' },
  { type: 'comments.markRead' },
  { type: 'comments.dismissError' },
  { type: 'comments.canCommentChanged', canComment: false },
  { type: 'comments.canCommentChanged', canComment: true },
];

const stamp = (c: Comment) => c.deletedAt ?? c.editedAt ?? c.createdAt;
const newest = (comments: readonly Comment[]) =>
  comments.reduce<string | null>((n, c) => (n === null || c.createdAt > n ? c.createdAt : n), null);

function key(snapshot: Snapshot): string {
  const { threads, comments, composing, show, mentionsMe, seenAt, error, canComment } = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    threads: threads.map((t) => `${t.id}@${t.updatedAt}`),
    comments: comments.map((c) => `${c.id}@${stamp(c)}`),
    composing,
    show,
    mentionsMe,
    seenAt,
    error,
    canComment,
  });
}

const traversal = {
  events: events as Event[],
  filterEvents: (snapshot: Snapshot, event: Event) => {
    if (!snapshot.can(event)) return false;
    const { threads, comments, composing, show, mentionsMe, seenAt, error, canComment } = snapshot.context;
    const type = event.type as string;
    const live = snapshot.matches({ list: 'live' });
    const idle = snapshot.matches({ requests: 'idle' });
    const plain = show === 'open' && !mentionsMe;
    const small = threads.length < 2 && comments.length < 2;
    const calm = live && idle && error === null && small;
    // Rows heard live and rejoins, from a quiet panel (heard while the list is read too).
    if (type === 'comments.threadChanged' || type === 'comments.commentChanged')
      return idle && composing === null && error === null && plain && canComment && small;
    if (type === 'comments.subscribed') return calm && composing === null && plain && canComment;
    // The filters and the room's say, one way and back, from a calm panel.
    if (event.type === 'comments.show') return event.show !== show && calm && composing === null && canComment;
    if (type === 'comments.toggleMentionsMe') return calm && composing === null && canComment;
    if (event.type === 'comments.canCommentChanged') return event.canComment !== canComment && calm && plain;
    if (type === 'comments.compose') return composing === null && calm && plain;
    if (type === 'comments.cancelCompose') return composing !== null;
    if (['comments.reply', 'comments.edit', 'comments.delete', 'comments.resolve', 'comments.reopen'].includes(type))
      return live && composing === null && plain && small;
    if (type === 'comments.markRead') return calm && composing === null && plain && seenAt !== newest(comments);
    if (type === 'comments.dismissError') return error !== null;
    // A thread's answer for a thread started, a comment's for the rest.
    const output = (event as { output?: { ok: boolean; value?: object } }).output;
    if (type === 'xstate.done.actor.send' && output?.value) {
      const started = 'thread' in output.value;
      return started === (composing !== null);
    }
    return true;
  },
  serializeState: key,
  serializeEvent: (event: Event) => JSON.stringify(event),
  input: { machineId: MACHINE, userId: ME, canComment: true },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = heldComments();
  const actor = createActor(fake.logic, { input: traversal.input }).start();
  for (const event of steps) {
    if (await settleRequest(fake.held, event)) continue;
    if (FACTS.has(event.type)) fake.facts.next(event as CommentsStreamEvent);
    else actor.send(event as Event);
    await settle();
  }
  return actor;
}

const machine = commentsMachine as unknown as MachinePaths<Snapshot, Event, CommentsInput>['machine'];

describeMachinePaths('comments machine', {
  machine,
  traversal,
  replay,
  observe: key,
  minEdges: 60,
  timeout: 240_000,
});

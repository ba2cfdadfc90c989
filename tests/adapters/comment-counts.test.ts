import type { SupabaseClient } from '@supabase/supabase-js';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommentCountsAdapter } from '../../src/adapters/supabase/comment-counts.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { CommentCountsFact } from '../../src/lib/ports/comment-counts.ts';
import { anonClient, type AnyClient } from '../setup/clients.ts';
import { until } from '../server/realtime-helpers.ts';
import { machineIn, projectFor, team, type Team } from './machines-fixtures.ts';

/**
 * Unread comment counts for the room, through the real adapter and client against the
 * real backend: per machine, threads with a comment by someone else after this person's
 * read mark (or since they joined) and new mentions of them; own and deleted comments
 * never count; a read mark clears a machine; an outsider and anon get nothing; and the
 * live channels say when a comment lands in the project or this person's mark moves,
 * while an outsider cannot join them.
 */

let t: Team;
let project: string;
let m1: string;
let m2: string;
const subscriptions: Subscription[] = [];

const typed = (c: AnyClient) => c as unknown as SupabaseClient<Database>;
const adapter = (c: AnyClient) => createCommentCountsAdapter(typed(c));
const start = async (c: AnyClient, machine: string, body: string, mentions: string[] = []) => {
  const r = await typed(c).rpc('start_comment_thread', {
    p_machine: machine,
    p_anchor_kind: 'state',
    p_anchor: 's_root',
    p_body: body,
    p_mentions: mentions,
  });
  if (r.error) throw new Error(r.error.message);
  return r.data as unknown as { thread: { id: string }; comment: { id: string } };
};
const reply = async (c: AnyClient, userId: string, machine: string, threadId: string, body: string) => {
  const r = await typed(c)
    .from('comments')
    .insert({ thread_id: threadId, project_id: project, machine_id: machine, body, author: userId })
    .select('id')
    .single();
  if (r.error) throw new Error(r.error.message);
  return r.data.id;
};
const countsOf = async (c: AnyClient) => {
  const r = await adapter(c).counts(project);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const markRead = async (c: AnyClient, userId: string, machine: string) => {
  const r = await typed(c)
    .from('comment_reads')
    .upsert(
      { user_id: userId, machine_id: machine, read_at: new Date().toISOString() },
      { onConflict: 'user_id,machine_id' },
    );
  if (r.error) throw new Error(r.error.message);
};
const watch = (c: AnyClient) => {
  const facts: CommentCountsFact[] = [];
  subscriptions.push(
    adapter(c)
      .moves$(project)
      .subscribe((f) => facts.push(f)),
  );
  return facts;
};
const subscribedTwice = (facts: CommentCountsFact[]) =>
  until(() => facts.filter((f) => f.type === 'counts.subscribed').length === 2, 10_000, 'both channels joined');

beforeAll(async () => {
  t = await team();
  project = await projectFor(t);
  m1 = await machineIn(t, project, 'checkout');
  m2 = await machineIn(t, project, 'payment');
}, 60_000);

afterAll(() => {
  for (const s of subscriptions) s.unsubscribe();
});

describe('unread comment counts', () => {
  it('counts threads by others and mentions, per machine and person; own and deleted comments never count', async () => {
    const first = await start(t.owner.client, m1, 'Why three retries, @Vi?', [t.viewer.id]);
    const answer = await reply(t.editor.client, t.editor.id, m1, first.thread.id, 'Because the bank flakes.');
    await start(t.owner.client, m2, 'Rename this?');

    expect(await countsOf(t.viewer.client)).toEqual({
      [m1]: { threads: 1, mentions: 1 },
      [m2]: { threads: 1, mentions: 0 },
    });
    // The owner wrote both threads: only the editor's reply is new to them.
    expect(await countsOf(t.owner.client)).toEqual({ [m1]: { threads: 1, mentions: 0 } });
    expect(await countsOf(t.editor.client)).toEqual({
      [m1]: { threads: 1, mentions: 0 },
      [m2]: { threads: 1, mentions: 0 },
    });

    // A deleted comment is no longer news.
    const deleted = await typed(t.editor.client)
      .from('comments')
      .update({ deleted_at: new Date().toISOString() })
      .eq('id', answer);
    expect(deleted.error).toBeNull();
    expect(await countsOf(t.owner.client)).toEqual({});
  });

  it('a read mark clears its machine for that person only', async () => {
    await markRead(t.viewer.client, t.viewer.id, m1);
    expect(await countsOf(t.viewer.client)).toEqual({ [m2]: { threads: 1, mentions: 0 } });
    expect((await countsOf(t.editor.client))[m1]).toEqual({ threads: 1, mentions: 0 });
  });

  it('gives an outsider nothing and refuses anon', async () => {
    expect(await countsOf(t.outsider.client)).toEqual({});
    const anon = await adapter(anonClient()).counts(project);
    expect(anon.ok).toBe(false);
  });

  it('says live when a comment lands in the project and when this person reads; an outsider hears nothing', async () => {
    const viewer = watch(t.viewer.client);
    const outsider = watch(t.outsider.client);
    await subscribedTwice(viewer);
    await until(() => outsider.some((f) => f.type === 'counts.lost'), 10_000, "the outsider's join refused");

    await start(t.editor.client, m1, 'One more thing');
    await until(() => viewer.some((f) => f.type === 'counts.moved' && f.machineId === m1), 10_000, 'the comment');
    expect(await countsOf(t.viewer.client)).toEqual({
      [m1]: { threads: 1, mentions: 0 },
      [m2]: { threads: 1, mentions: 0 },
    });

    await markRead(t.viewer.client, t.viewer.id, m2);
    await until(() => viewer.some((f) => f.type === 'counts.moved' && f.machineId === m2), 10_000, 'the read mark');
    expect(await countsOf(t.viewer.client)).toEqual({ [m1]: { threads: 1, mentions: 0 } });
    expect(outsider.some((f) => f.type === 'counts.moved')).toBe(false);
  });
});

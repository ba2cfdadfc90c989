import type { SupabaseClient } from '@supabase/supabase-js';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCommentsAdapter } from '../../src/adapters/supabase/comments.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { CommentsStreamEvent } from '../../src/lib/ports/comments.ts';
import { machineIn, type Team } from '../adapters/machines-fixtures.ts';
import { anonClient, backendInfo, signedInClient, type AnyClient } from '../setup/clients.ts';
import { callerClients, callerIds, teamMachine } from './rls-callers.ts';
import { closeClients, RawSocket, until } from './realtime-helpers.ts';

/**
 * Comment threads and comments under row level security, from the outside: through
 * supabase-js, raw HTTP and a raw realtime socket. Readers of the machine (members,
 * guests among them) read; members who are not guests start threads, reply, resolve and
 * reopen; authors alone edit and delete their own; outsiders and anon see and write
 * nothing; a removed member loses access at once and what they wrote stays. Bad input
 * is refused in PostgREST's shape and nothing is written.
 */

type Who = 'anon' | 'outsider' | 'guest' | 'viewer' | 'editor' | 'owner' | 'removed';
const WHO: Who[] = ['anon', 'outsider', 'guest', 'viewer', 'editor', 'owner', 'removed'];
const writers = new Set<Who>(['viewer', 'editor', 'owner']);
const readers = new Set<Who>(['guest', 'viewer', 'editor', 'owner']);

let t: Team;
let db: pg.Client;
let project: string;
let machine: string;
const clients = {} as Record<Who, AnyClient>;
const ids = {} as Record<Who, string>;
const cleanups: (() => void)[] = [];

const typed = (c: AnyClient) => c as SupabaseClient<Database>;
const token = async (c: AnyClient) => (await c.auth.getSession()).data.session!.access_token;
const start = (c: AnyClient, body: string, mentions: string[] = [], anchor = 's_root') =>
  c.rpc('start_comment_thread', {
    p_machine: machine,
    p_anchor_kind: 'state',
    p_anchor: anchor,
    p_body: body,
    p_mentions: mentions,
  });
const countComments = async () =>
  Number(
    (await db.query<{ count: string }>('select count(*) from public.comments where machine_id = $1', [machine]))
      .rows[0]!.count,
  );

beforeAll(async () => {
  ({ t, db, project, machine } = await teamMachine());
  Object.assign(clients, callerClients(t));
  Object.assign(ids, callerIds(t));
  // A guest (an anonymous session) who opened the project's link: a viewer member.
  const guest = anonClient();
  const signedIn = await guest.auth.signInAnonymously();
  if (signedIn.error) throw signedIn.error;
  clients.guest = guest;
  ids.guest = signedIn.data.user!.id;
  // A member who wrote a comment, then was removed.
  const removed = await signedInClient('c-removed');
  clients.removed = removed.client;
  ids.removed = removed.user.id;
  await db.query(
    `insert into public.project_members (project_id, user_id, role, joined_via)
     values ($1, $2, 'viewer', 'link'), ($1, $3, 'editor', 'added')`,
    [project, ids.guest, ids.removed],
  );
  const before = await start(removed.client, 'written before removal');
  if (before.error) throw new Error(before.error.message);
  const gone = await t.owner.client
    .from('project_members')
    .delete()
    .eq('project_id', project)
    .eq('user_id', ids.removed);
  if (gone.error) throw new Error(gone.error.message);
}, 60_000);

afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
afterAll(async () => {
  await db.end();
  await closeClients();
});

describe('threads and replies through supabase-js', () => {
  it.each(WHO)('start a thread as %s', async (who) => {
    const before = await countComments();
    const r = await start(clients[who], `thread by ${who}`);
    if (writers.has(who)) {
      expect(r.error).toBeNull();
      const answer = r.data as { thread: { created_by: string }; comment: { author: string; body: string } };
      expect(answer.thread.created_by).toBe(ids[who]);
      expect(answer.comment).toMatchObject({ author: ids[who], body: `thread by ${who}` });
      expect(await countComments()).toBe(before + 1);
      return;
    }
    // anon may not call it at all; an outsider or removed member is told the machine is not there; a guest may not write.
    expect(r.error?.code).toBe(who === 'anon' ? '42501' : who === 'guest' ? '42501' : 'PT404');
    expect(await countComments()).toBe(before);
  });

  it.each(WHO)('read threads and comments as %s', async (who) => {
    const threads = await clients[who].from('comment_threads').select('id').eq('machine_id', machine);
    const comments = await clients[who].from('comments').select('body').eq('machine_id', machine);
    expect(threads.error).toBeNull();
    expect(comments.error).toBeNull();
    if (readers.has(who)) {
      expect(threads.data!.length).toBeGreaterThan(0);
      // The removed member's comment stays readable to the project.
      expect((comments.data as { body: string }[]).map((c) => c.body)).toContain('written before removal');
    } else {
      expect(threads.data).toEqual([]);
      expect(comments.data).toEqual([]);
    }
  });

  it.each(WHO)('reply, resolve and reopen as %s', async (who) => {
    const opened = await start(t.owner.client, `to be answered by ${who}`);
    const thread = (opened.data as { thread: { id: string } }).thread.id;
    const before = await countComments();
    const reply = await clients[who]
      .from('comments')
      .insert({
        thread_id: thread,
        project_id: project,
        machine_id: machine,
        body: `reply by ${who}`,
        author: ids[who] ?? null,
      })
      .select('id');
    const resolved = await clients[who]
      .from('comment_threads')
      .update({ resolved_at: '2000-01-01T00:00:00Z' })
      .eq('id', thread)
      .select('resolved_at, resolved_by');
    if (writers.has(who)) {
      expect(reply.error).toBeNull();
      expect(await countComments()).toBe(before + 1);
      // The server stamps who and when, whatever the caller says.
      expect(resolved.data).toHaveLength(1);
      expect(resolved.data![0]!.resolved_by).toBe(ids[who]);
      expect(resolved.data![0]!.resolved_at).not.toBe('2000-01-01T00:00:00+00:00');
      const reopened = await clients[who]
        .from('comment_threads')
        .update({ resolved_at: null })
        .eq('id', thread)
        .select('resolved_at, resolved_by');
      expect(reopened.data).toEqual([{ resolved_at: null, resolved_by: null }]);
      return;
    }
    expect(reply.error?.code).toBe('42501');
    expect(await countComments()).toBe(before);
    expect(resolved.error === null ? resolved.data : resolved.error.code).toEqual(
      resolved.error === null ? [] : '42501',
    );
    const row = await db.query<{ resolved_at: string | null }>(
      'select resolved_at from public.comment_threads where id = $1',
      [thread],
    );
    expect(row.rows[0]!.resolved_at).toBeNull();
  });

  it('only the author edits or deletes a comment; a delete keeps the thread and empties the text', async () => {
    const opened = await start(t.editor.client, 'first words');
    const answer = opened.data as { thread: { id: string }; comment: { id: string } };
    const [thread, comment] = [answer.thread.id, answer.comment.id];
    for (const who of WHO.filter((w) => w !== 'editor')) {
      const edited = await clients[who]
        .from('comments')
        .update({ body: `hijacked by ${who}` })
        .eq('id', comment)
        .select('id');
      expect(edited.error === null ? edited.data : edited.error.code).toEqual(edited.error === null ? [] : '42501');
    }
    const own = await t.editor.client
      .from('comments')
      .update({ body: 'second words' })
      .eq('id', comment)
      .select('body, edited_at');
    expect(own.data).toHaveLength(1);
    expect(own.data![0]!.body).toBe('second words');
    expect(own.data![0]!.edited_at).not.toBeNull();
    const gone = await t.editor.client
      .from('comments')
      .update({ deleted_at: new Date().toISOString() })
      .eq('id', comment)
      .select('body, deleted_at');
    expect(gone.data![0]).toMatchObject({ body: '' });
    expect(gone.data![0]!.deleted_at).not.toBeNull();
    const again = await t.editor.client.from('comments').update({ body: 'back again' }).eq('id', comment).select('id');
    expect(again.error?.code).toBe('PT409');
    const still = await t.owner.client.from('comment_threads').select('id').eq('id', thread);
    expect(still.data).toHaveLength(1);
    // No client deletes a row.
    const hard = await t.editor.client.from('comments').delete().eq('id', comment).select('id');
    expect(hard.error?.code).toBe('42501');
  });
});

describe('bad input: a clear error and nothing written', () => {
  it('a body over 10,000 characters, an empty one, a mention of a non-member', async () => {
    const before = await countComments();
    const long = await start(t.editor.client, 'x'.repeat(10_001));
    expect(long.error).toMatchObject({
      code: '22023',
      message: 'a comment is 1 to 10,000 characters (this one has 10001)',
    });
    const empty = await start(t.editor.client, '');
    expect(empty.error?.code).toBe('22023');
    const outsider = await start(t.editor.client, 'hello @someone', [t.outsider.id]);
    expect(outsider.error).toMatchObject({ code: '22023', message: 'only members of the project can be mentioned' });
    const removed = await start(t.editor.client, 'hello @gone', [ids.removed]);
    expect(removed.error?.code).toBe('22023');
    expect(await countComments()).toBe(before);
    const threads = await db.query<{ count: string }>(
      "select count(*) from public.comment_threads where machine_id = $1 and anchor = 's_root' and created_by = $2",
      [machine, t.editor.id],
    );
    const fine = await start(t.editor.client, 'hello @Ada', [t.owner.id]);
    expect(fine.error).toBeNull();
    const after = await db.query<{ count: string }>(
      "select count(*) from public.comment_threads where machine_id = $1 and anchor = 's_root' and created_by = $2",
      [machine, t.editor.id],
    );
    expect(Number(after.rows[0]!.count)).toBe(Number(threads.rows[0]!.count) + 1);
  });

  it('the adapter says the same in words', async () => {
    const port = createCommentsAdapter(typed(t.viewer.client));
    const r = await port.startThread({
      machineId: machine,
      anchor: { kind: 'state', value: 's_root' },
      body: 'y'.repeat(10_001),
      mentions: [],
    });
    expect(r).toEqual({
      ok: false,
      error: {
        code: 'invalid',
        message: "Couldn't start the thread: a comment is 1 to 10,000 characters (this one has 10001).",
      },
    });
    const guest = await createCommentsAdapter(typed(clients.guest)).startThread({
      machineId: machine,
      anchor: { kind: 'transition', value: 't_1' },
      body: 'guest words',
      mentions: [],
    });
    expect(guest).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('more than 30 comments a minute: refused with 429 over raw HTTP, nothing written', async () => {
    const chatty = await signedInClient('c-chatty');
    await db.query(
      `insert into public.project_members (project_id, user_id, role, joined_via) values ($1, $2, 'viewer', 'added')`,
      [project, chatty.user.id],
    );
    const first = await start(chatty.client, 'one');
    const thread = (first.data as { thread: { id: string } }).thread.id;
    for (let i = 2; i <= 30; i++) {
      const r = await chatty.client
        .from('comments')
        .insert({ thread_id: thread, project_id: project, machine_id: machine, body: `n${i}`, author: chatty.user.id });
      expect(r.error).toBeNull();
    }
    const before = await countComments();
    const { url, anonKey } = backendInfo();
    const res = await fetch(`${url}/rest/v1/comments`, {
      method: 'POST',
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${chatty.session.access_token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        thread_id: thread,
        project_id: project,
        machine_id: machine,
        body: 'one too many',
        author: chatty.user.id,
      }),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ code: 'PT429', message: 'too many comments: at most 30 a minute' });
    expect(await countComments()).toBe(before);
  });

  it('raw HTTP: no direct thread insert, no delete, an outsider gets nothing', async () => {
    const { url, anonKey } = backendInfo();
    const as = async (c: AnyClient) => ({
      apikey: anonKey,
      authorization: `Bearer ${await token(c)}`,
      'content-type': 'application/json',
    });
    const direct = await fetch(`${url}/rest/v1/comment_threads`, {
      method: 'POST',
      headers: await as(t.owner.client),
      body: JSON.stringify({ project_id: project, machine_id: machine, anchor_kind: 'state', anchor: 's_root' }),
    });
    expect(direct.status).toBe(403);
    const listed = await fetch(`${url}/rest/v1/comments?machine_id=eq.${machine}&select=id`, {
      headers: await as(t.outsider.client),
    });
    expect(await listed.json()).toEqual([]);
    const rpc = await fetch(`${url}/rest/v1/rpc/start_comment_thread`, {
      method: 'POST',
      headers: await as(t.outsider.client),
      body: JSON.stringify({ p_machine: machine, p_anchor_kind: 'state', p_anchor: 's_root', p_body: 'let me in' }),
    });
    expect(rpc.status).toBe(404);
    const badKind = await fetch(`${url}/rest/v1/rpc/start_comment_thread`, {
      method: 'POST',
      headers: await as(t.owner.client),
      body: JSON.stringify({ p_machine: machine, p_anchor_kind: 'nowhere', p_anchor: 's_root', p_body: 'hm' }),
    });
    expect(badKind.status).toBe(400);
    expect(((await badKind.json()) as { code: string }).code).toBe('22023');
  });
});

describe('live on the private channel comments:<machine>', () => {
  it('readers get new threads, replies and resolves through the adapter; what the owner wrote reaches the viewer', async () => {
    const live = await machineIn(t, project, 'live comments');
    const seen: CommentsStreamEvent[] = [];
    const sub = createCommentsAdapter(typed(t.viewer.client))
      .changes$(live)
      .subscribe((e) => seen.push(e));
    cleanups.push(() => sub.unsubscribe());
    await until(() => seen.find((e) => e.type === 'comments.subscribed'), 10_000, 'the channel');
    const owner = createCommentsAdapter(typed(t.owner.client));
    const started = await owner.startThread({
      machineId: live,
      anchor: { kind: 'state', value: 's_root' },
      body: 'why?',
      mentions: [t.viewer.id],
    });
    if (!started.ok) throw new Error(started.error.message);
    await until(
      () => seen.find((e) => e.type === 'comments.commentChanged' && e.comment.body === 'why?'),
      10_000,
      'the first comment',
    );
    const reply = await owner.reply({
      machineId: live,
      threadId: started.value.thread.id,
      body: 'because',
      mentions: [],
    });
    expect(reply.ok).toBe(true);
    await owner.resolve(started.value.thread.id, true);
    await until(
      () => seen.find((e) => e.type === 'comments.commentChanged' && e.comment.body === 'because'),
      10_000,
      'the reply',
    );
    const resolved = await until(
      () => seen.find((e) => e.type === 'comments.threadChanged' && e.thread.resolvedAt !== null),
      10_000,
      'the resolve',
    );
    expect(resolved).toMatchObject({ thread: { resolvedBy: t.owner.id, anchor: { kind: 'state', value: 's_root' } } });
  });

  it('raw sockets: a viewer and a guest join; an outsider, anon and a removed member cannot; nobody forges a broadcast', async () => {
    const topic = `realtime:comments:${machine}`;
    const join = async (c: AnyClient | null) => {
      const socket = await RawSocket.open('1.0.0');
      cleanups.push(() => socket.close());
      const payload = c ? { config: { private: true }, access_token: await token(c) } : { config: { private: true } };
      return { socket, reply: await socket.join(topic, '1', payload) };
    };
    const viewer = await join(t.viewer.client);
    expect(viewer.reply.status).toBe('ok');
    expect((await join(clients.guest)).reply.status).toBe('ok');
    expect((await join(t.outsider.client)).reply.status).toBe('error');
    expect((await join(clients.removed)).reply.status).toBe('error');
    expect((await join(null)).reply.status).toBe('error');

    // An editor's forged broadcast is refused; the owner's real comment that follows arrives.
    const editor = await join(t.editor.client);
    editor.socket.push('1', '2', topic, 'broadcast', {
      type: 'broadcast',
      event: 'comment',
      payload: { id: 'forged', body: 'forged' },
    });
    const real = await start(t.owner.client, 'the real one');
    expect(real.error).toBeNull();
    const bodies = () =>
      viewer.socket
        .messages()
        .filter((m) => m.event === 'broadcast')
        .map((m) => (m.payload.payload as { body?: string } | undefined)?.body);
    await until(() => bodies().includes('the real one'), 10_000, 'the real comment');
    expect(bodies()).not.toContain('forged');
  });

  it('a member removed while joined is dropped from the channel and reads nothing at once', async () => {
    const late = await signedInClient('c-late');
    await db.query(
      `insert into public.project_members (project_id, user_id, role, joined_via) values ($1, $2, 'editor', 'added')`,
      [project, late.user.id],
    );
    const socket = await RawSocket.open('1.0.0');
    cleanups.push(() => socket.close());
    const topic = `realtime:comments:${machine}`;
    expect(
      (await socket.join(topic, '1', { config: { private: true }, access_token: late.session.access_token })).status,
    ).toBe('ok');
    const wrote = await start(late.client, 'mine, before I go');
    expect(wrote.error).toBeNull();
    const removal = await t.owner.client
      .from('project_members')
      .delete()
      .eq('project_id', project)
      .eq('user_id', late.user.id);
    expect(removal.error).toBeNull();
    const read = await late.client.from('comments').select('id').eq('machine_id', machine);
    expect(read.data).toEqual([]);
    const reply = await start(late.client, 'still here?');
    expect(reply.error?.code).toBe('PT404');
    await until(
      () =>
        socket
          .messages()
          .find(
            (m) => m.topic === topic && (m.event === 'phx_close' || m.event === 'phx_error' || m.event === 'system'),
          ),
      10_000,
      'the channel ended',
    );
    const kept = await t.owner.client.from('comments').select('body').eq('body', 'mine, before I go');
    expect(kept.data).toHaveLength(1);
  });
});

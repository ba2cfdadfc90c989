import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCanvasPresenceAdapter } from '../../src/adapters/supabase/canvas-presence.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createInspectionFollowAdapter } from '../../src/adapters/supabase/inspection-follow.ts';
import { createRoomAdapter } from '../../src/adapters/supabase/room.ts';
import { createTestPlaybackAdapter } from '../../src/adapters/supabase/test-playback.ts';
import type { PresenceFact } from '../../src/lib/ports/canvas-presence.ts';
import type { RoomFact } from '../../src/lib/ports/room.ts';
import { machineIn, projectFor, team, type Person, type Team } from '../adapters/machines-fixtures.ts';
import { backendInfo } from '../setup/clients.ts';
import { closeClients, RawSocket, realtimeClient, subscribe, until } from './realtime-helpers.ts';

/**
 * The project's realtime surface as an attacker sees it: the room channel, DELETE events,
 * forged cursors and presences, and a burst of joins. Raw frames where the app's client
 * would hide the attack, the app's own adapters where the fix lives in them.
 */

type Client = SupabaseClient<Database>;
const typed = (p: Person): Client => p.client as Client;
const token = async (p: Person): Promise<string> => (await p.client.auth.getSession()).data.session!.access_token;

let t: Team;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  t = await team();
}, 60_000);
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
afterAll(closeClients);

describe('the project room channel', () => {
  it('is private: anon and outsiders cannot join it; the room never shows up on the public topic', async () => {
    const project = await projectFor(t);
    const facts: RoomFact[] = [];
    const room = createRoomAdapter(typed(t.editor)).open(project, t.editor.id);
    const sub = room.facts$.subscribe((f) => facts.push(f));
    cleanups.push(() => sub.unsubscribe());
    await until(() => facts.find((f) => f.type === 'channel.subscribed'), 10_000, 'room joined');
    room.track('machine-1');

    const anon = await RawSocket.open('1.0.0');
    const outsider = await RawSocket.open('1.0.0');
    const member = await RawSocket.open('1.0.0');
    cleanups.push(() => [anon, outsider, member].forEach((s) => s.close()));
    const topic = `realtime:room:${project}`;
    const privateJoin = (accessToken?: string) => ({
      config: { private: true, presence: { enabled: true } },
      ...(accessToken ? { access_token: accessToken } : {}),
    });
    expect((await anon.join(topic, '1', privateJoin())).status).toBe('error');
    expect((await outsider.join(topic, '1', privateJoin(await token(t.outsider)))).status).toBe('error');
    // A member (the viewer) gets in and sees the editor's presence, with the server's stamp.
    expect((await member.join(topic, '1', privateJoin(await token(t.viewer)))).status).toBe('ok');
    const state = await until(
      () => member.messages().find((m) => m.event === 'presence_state' || m.event === 'presence_diff'),
      10_000,
      'presence',
    );
    expect(JSON.stringify(state.payload)).toContain(t.editor.id);
    // The public topic of the same name is another channel: nothing of the room is there.
    expect((await outsider.join(topic, '2', { config: { presence: { enabled: true } } })).status).toBe('ok');
    const seen = await until(
      () => outsider.messages().find((m) => m.event === 'presence_state'),
      10_000,
      'public presence',
    );
    expect(seen.payload).toEqual({});
  });

  it('lets only members track presence in it', async () => {
    const project = await projectFor(t, 'public');
    const outsider = await RawSocket.open('1.0.0');
    cleanups.push(() => outsider.close());
    const topic = `realtime:room:${project}`;
    // A public project's room is readable by anyone signed in...
    expect(
      (
        await outsider.join(topic, '1', {
          config: { private: true, presence: { enabled: true } },
          access_token: await token(t.outsider),
        })
      ).status,
    ).toBe('ok');
    // ...but an outsider cannot appear in it, under any key.
    outsider.push('1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: { userId: t.owner.id } });
    expect((await outsider.waitReply('2')).status).toBe('error');
  });
});

describe('DELETE events name nothing', () => {
  it('an anon subscriber to deletes of projects, members and machines learns no project, user or machine id', async () => {
    const project = await projectFor(t);
    const machine = await machineIn(t, project, 'deleted');
    const spy = await realtimeClient('2.0.0');
    const deletes: Record<string, unknown>[] = [];
    const channel = spy.channel('delete-spy');
    for (const table of ['projects', 'project_members', 'machines']) {
      channel.on(
        'postgres_changes',
        { event: 'DELETE', schema: 'public', table },
        (payload: { table: string; old: Record<string, unknown> }) =>
          deletes.push({ table: payload.table, old: payload.old }),
      );
    }
    expect((await subscribe(channel)).status).toBe('SUBSCRIBED');
    await until(() => channel.state === 'joined', 10_000, 'joined');

    // A member of the project hears each removal on its private channels.
    const roomFacts: RoomFact[] = [];
    const room = createRoomAdapter(typed(t.editor)).open(project, t.editor.id);
    const sub = room.facts$.subscribe((f) => roomFacts.push(f));
    cleanups.push(() => sub.unsubscribe());
    await until(() => roomFacts.find((f) => f.type === 'channel.subscribed'), 10_000, 'room joined');

    expect((await t.owner.client.from('machines').delete().eq('id', machine).select('id')).data).toHaveLength(1);
    expect(
      (
        await t.owner.client
          .from('project_members')
          .delete()
          .eq('project_id', project)
          .eq('user_id', t.viewer.id)
          .select('user_id')
      ).data,
    ).toHaveLength(1);
    await until(
      () =>
        roomFacts.find(
          (f) =>
            f.type === 'change.received' &&
            f.change.table === 'project_members' &&
            f.change.type === 'delete' &&
            f.change.userId === t.viewer.id,
        ),
      10_000,
      'the member removal on the room channel',
    );
    expect((await t.owner.client.from('projects').delete().eq('id', project).select('id')).data).toHaveLength(1);
    // Deletes still stream (each names only an opaque key): wait for one per table.
    await until(
      () => ['projects', 'project_members', 'machines'].every((table) => deletes.some((d) => d.table === table)),
      10_000,
      'delete events',
    );
    const text = JSON.stringify(deletes);
    for (const id of [project, machine, t.viewer.id, t.owner.id, t.editor.id]) expect(text).not.toContain(id);
    // At most the opaque replica key (this server sends anon none of it).
    for (const d of deletes) expect(Object.keys(d.old as object).filter((k) => k !== 'realtime_key')).toEqual([]);
  });
});

/** A new machine in a new project with the owner's canvas presence joined on it, and the facts it sees. */
async function ownerOnCanvas(name: string): Promise<{ machine: string; facts: PresenceFact[] }> {
  const project = await projectFor(t);
  const machine = await machineIn(t, project, name);
  const facts: PresenceFact[] = [];
  const victim = createCanvasPresenceAdapter(typed(t.owner)).open(machine, t.owner.id);
  const sub = victim.facts$.subscribe((f) => facts.push(f));
  cleanups.push(() => sub.unsubscribe());
  await until(() => facts.find((f) => f.type === 'presence.joined'), 10_000, 'joined');
  return { machine, facts };
}

describe('whose cursor and presence it is', () => {
  it('the server stamps the sender; the app ignores a cursor or a selection claiming someone else', async () => {
    const { machine, facts } = await ownerOnCanvas('spoofed');

    // The viewer, on raw frames: a cursor claiming to be the editor, a presence under the
    // editor's key, then an honest cursor of their own.
    const raw = await RawSocket.open('1.0.0');
    cleanups.push(() => raw.close());
    const topic = `realtime:canvas:${machine}`;
    const join = {
      config: { private: true, presence: { enabled: true, key: t.editor.id } },
      access_token: await token(t.viewer),
    };
    expect((await raw.join(topic, '1', join)).status).toBe('ok');
    raw.push('1', '2', topic, 'presence', {
      type: 'presence',
      event: 'track',
      payload: { userId: t.editor.id, selection: ['forged'] },
    });
    expect((await raw.waitReply('2')).status).toBe('ok');
    raw.push('1', '3', topic, 'broadcast', {
      type: 'broadcast',
      event: 'cursor',
      payload: { userId: t.editor.id, x: 1, y: 1 },
      meta: { sender: t.editor.id },
    });
    raw.push('1', '4', topic, 'broadcast', {
      type: 'broadcast',
      event: 'cursor',
      payload: { userId: t.viewer.id, x: 2, y: 2 },
    });
    const honest = await until(
      () => facts.find((f) => f.type === 'cursor.moved' && f.userId === t.viewer.id),
      10_000,
      'the honest cursor',
    );
    expect(honest).toEqual({ type: 'cursor.moved', userId: t.viewer.id, at: { x: 2, y: 2 } });
    // Same sender, same channel, in order: the forged cursor came first and was dropped.
    expect(facts.filter((f) => f.type === 'cursor.moved' && f.userId === t.editor.id)).toEqual([]);
    const peers = facts.filter(
      (f): f is Extract<PresenceFact, { type: 'presence.synced' }> => f.type === 'presence.synced',
    );
    expect(peers.flatMap((p) => p.peers).some((p) => p.userId === t.editor.id)).toBe(false);

    // What went over the wire: the server's stamp, not the client's.
    const watcher = await RawSocket.open('1.0.0');
    cleanups.push(() => watcher.close());
    expect(
      (await watcher.join(topic, '1', { config: { private: true }, access_token: await token(t.owner) })).status,
    ).toBe('ok');
    raw.push('1', '5', topic, 'broadcast', {
      type: 'broadcast',
      event: 'cursor',
      payload: { userId: t.editor.id, x: 3, y: 3 },
      meta: { sender: t.editor.id },
    });
    const delivered = await until(() => watcher.messages().find((m) => m.event === 'broadcast'), 10_000, 'broadcast');
    expect(delivered.payload.meta).toEqual({ sender: t.viewer.id });
  });
});

describe('whose a REST broadcast is', () => {
  /** POST /realtime/v1/api/broadcast as `p`: the batch form, or the single form with `single`. */
  async function post(p: Person, topic: string, event: string, payload: object, single = false): Promise<number> {
    const { url, anonKey } = backendInfo();
    const headers = { apikey: anonKey, authorization: `Bearer ${await token(p)}`, 'content-type': 'application/json' };
    const response = single
      ? await fetch(`${url}/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/${event}?private=true`, {
          method: 'POST',
          headers,
          body: JSON.stringify(payload),
        })
      : await fetch(`${url}/realtime/v1/api/broadcast`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ messages: [{ topic, event, payload, private: true }] }),
        });
    return response.status;
  }

  it('is stamped with the poster in both forms, as on the socket', async () => {
    const project = await projectFor(t);
    const machine = await machineIn(t, project, 'stamped');
    const topic = `canvas:${machine}`;
    const watcher = await RawSocket.open('1.0.0');
    cleanups.push(() => watcher.close());
    const joined = await watcher.join(`realtime:${topic}`, '1', {
      config: { private: true },
      access_token: await token(t.owner),
    });
    expect(joined.status).toBe('ok');
    const { url, anonKey } = backendInfo();
    const batch = await fetch(`${url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${await token(t.viewer)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        messages: [{ topic, event: 'cursor', payload: { userId: t.editor.id }, private: true, id: 'm1' }],
      }),
    });
    expect(batch.status).toBe(202);
    expect(await post(t.viewer, topic, 'view', { userId: t.editor.id }, true)).toBe(202);
    const got = await until(
      () => {
        const all = watcher.messages().filter((m) => m.event === 'broadcast');
        return all.length >= 2 ? all : undefined;
      },
      10_000,
      'two REST broadcasts',
    );
    expect(got.map((m) => m.payload.meta)).toEqual([{ id: 'm1', sender: t.viewer.id }, { sender: t.viewer.id }]);
  });

  it('a viewer cannot show a cursor or a view under another member through the REST API', async () => {
    const { machine, facts } = await ownerOnCanvas('rest-spoof');
    const topic = `canvas:${machine}`;
    // Forged first, in both forms, then an honest cursor: same poster, same channel, in order.
    expect(await post(t.viewer, topic, 'cursor', { userId: t.editor.id, x: 1, y: 1 })).toBe(202);
    expect(await post(t.viewer, topic, 'view', { userId: t.editor.id, x: 0, y: 0, zoom: 1 }, true)).toBe(202);
    expect(await post(t.viewer, topic, 'cursor', { userId: t.viewer.id, x: 2, y: 2 }, true)).toBe(202);
    await until(() => facts.find((f) => f.type === 'cursor.moved' && f.userId === t.viewer.id), 10_000, 'honest');
    expect(facts.filter((f) => 'userId' in f && f.userId === t.editor.id)).toEqual([]);
  });

  it('test playback and inspection follow ignore a REST broadcast claiming another member', async () => {
    const project = await projectFor(t);
    const machine = await machineIn(t, project, 'rest-play');
    const played: unknown[] = [];
    const followed: unknown[] = [];
    const play = createTestPlaybackAdapter(typed(t.viewer)).open(machine, t.viewer.id);
    const follow = createInspectionFollowAdapter(typed(t.viewer)).open(project, t.viewer.id);
    const subs = [play.facts$.subscribe((f) => played.push(f)), follow.facts$.subscribe((f) => followed.push(f))];
    cleanups.push(() => subs.forEach((s) => s.unsubscribe()));
    await until(() => played.some((f) => (f as { type: string }).type === 'playback.joined'), 10_000, 'play joined');
    await until(() => followed.some((f) => (f as { type: string }).type === 'follow.joined'), 10_000, 'follow joined');

    // The editor claims to be the owner, then speaks as themself.
    expect(await post(t.editor, `test-play:${machine}`, 'stop', { userId: t.owner.id })).toBe(202);
    expect(await post(t.editor, `test-play:${machine}`, 'stop', { userId: t.editor.id }, true)).toBe(202);
    expect(await post(t.editor, `inspect-follow:${project}`, 'ask', { userId: t.owner.id }, true)).toBe(202);
    expect(await post(t.editor, `inspect-follow:${project}`, 'ask', { userId: t.editor.id })).toBe(202);
    await until(() => JSON.stringify(played).includes(t.editor.id), 10_000, 'the honest stop');
    await until(() => JSON.stringify(followed).includes(t.editor.id), 10_000, 'the honest ask');
    expect(JSON.stringify(played)).not.toContain(t.owner.id);
    expect(JSON.stringify(followed)).not.toContain(t.owner.id);
  });
});

describe('channels per socket', () => {
  it('counts a join when it is requested: 190 joins in one burst get 100 channels', async () => {
    const raw = await RawSocket.open('2.0.0');
    cleanups.push(() => raw.close());
    for (let i = 0; i < 190; i++) raw.push(`j${i}`, `j${i}`, `realtime:burst-${i}`, 'phx_join', { config: {} });
    await until(() => raw.messages().filter((m) => m.event === 'phx_reply').length >= 190, 20_000, '190 replies');
    const replies = raw.messages().filter((m) => m.event === 'phx_reply');
    const ok = replies.filter((m) => m.payload.status === 'ok');
    const refused = replies.filter((m) => m.payload.status === 'error');
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(90);
    expect(new Set(refused.map((m) => (m.payload.response as { reason: string }).reason))).toEqual(
      new Set(['ChannelRateLimitReached: Too many channels']),
    );
  });
});

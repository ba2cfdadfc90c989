import type { RealtimeChannel } from '@supabase/supabase-js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeClients,
  RawSocket,
  realtimeClient,
  subscribed,
  uniqueTopic,
  until,
  VSNS,
  type TestVsn,
} from './realtime-helpers.ts';

afterEach(closeClients);

interface Watched {
  channel: RealtimeChannel;
  joins: string[];
  leaves: string[];
  /** Keys in presenceState() after each sync. */
  keys(): string[];
}

async function watch(vsn: TestVsn, topic: string, key?: string): Promise<Watched> {
  const client = await realtimeClient(vsn);
  const channel = client.channel(topic, key ? { config: { presence: { key } } } : undefined);
  const w: Watched = { channel, joins: [], leaves: [], keys: () => Object.keys(channel.presenceState()).sort() };
  channel
    .on('presence', { event: 'sync' }, () => undefined)
    .on('presence', { event: 'join' }, ({ key: k }) => w.joins.push(k))
    .on('presence', { event: 'leave' }, ({ key: k }) => w.leaves.push(k));
  await subscribed(channel);
  return w;
}

describe.each(VSNS)('presence over vsn %s', (vsn) => {
  it('syncs tracked metas to everyone, late joiners included, and publishes leaves on untrack and on disconnect', async () => {
    const topic = uniqueTopic('rtp');
    const alice = await watch(vsn, topic, 'alice');
    const bob = await watch(vsn, topic, 'bob');
    expect(await alice.channel.track({ name: 'Alice', colour: 'red' })).toBe('ok');
    expect(await bob.channel.track({ name: 'Bob' })).toBe('ok');
    await until(() => alice.keys().join() === 'alice,bob' && bob.keys().join() === 'alice,bob', 5000, 'both in sync');

    const state = alice.channel.presenceState<{ name: string; colour?: string }>();
    expect(state.alice).toHaveLength(1);
    expect(state.alice![0]).toMatchObject({ name: 'Alice', colour: 'red' });
    expect(typeof state.alice![0]!.presence_ref).toBe('string');

    // A late joiner gets the whole state at once, after its join reply.
    const carol = await watch(vsn, topic, 'carol');
    await until(() => carol.keys().join() === 'alice,bob', 5000, 'late joiner state');

    expect(await bob.channel.untrack()).toBe('ok');
    await until(() => alice.leaves.includes('bob') && carol.leaves.includes('bob'), 5000, 'untrack leave');
    expect(alice.keys()).toEqual(['alice']);

    // Alice's socket goes away without leaving: the server drops her presence.
    await alice.channel.socket.disconnect();
    await until(() => carol.leaves.includes('alice') && bob.leaves.includes('alice'), 5000, 'disconnect leave');
    expect(carol.keys()).toEqual([]);
  });

  it('updates a presence in place when the same channel tracks again', async () => {
    const topic = uniqueTopic('rtp-upd');
    const me = await watch(vsn, topic, 'me');
    const other = await watch(vsn, topic, 'other');
    await me.channel.track({ step: 1 });
    await until(() => other.channel.presenceState<{ step: number }>().me?.[0]?.step === 1, 5000, 'first track');
    await me.channel.track({ step: 2 });
    await until(() => other.channel.presenceState<{ step: number }>().me?.[0]?.step === 2, 5000, 'second track');
    expect(other.channel.presenceState().me).toHaveLength(1);
  });

  it('generates a presence key when the client gives none', async () => {
    const topic = uniqueTopic('rtp-key');
    const anonymous = await watch(vsn, topic);
    await anonymous.channel.track({ here: true });
    const key = await until(() => anonymous.keys()[0], 5000, 'own presence');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('presence frames', () => {
  it('sends presence_state after the join reply, and diffs with phx_ref in each meta', async () => {
    const topic = `realtime:${uniqueTopic('rtp-raw')}`;
    const tracker = await RawSocket.open('2.0.0');
    const watcher = await RawSocket.open('1.0.0');
    try {
      await tracker.join(topic, '1', { config: { presence: { key: 'k1', enabled: true } } });
      tracker.push('1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: { x: 1 } });
      expect(await tracker.waitReply('2')).toEqual({ status: 'ok', response: {} });

      await watcher.join(topic, '5', { config: { presence: { key: 'k2', enabled: true } } });
      const events = () => watcher.messages().map((m) => m.event);
      await until(() => events().includes('presence_state'), 5000, 'presence_state');
      expect(events().indexOf('phx_reply')).toBeLessThan(events().indexOf('presence_state'));
      const state = watcher.messages().find((m) => m.event === 'presence_state')!.payload as Record<
        string,
        { metas: Record<string, unknown>[] }
      >;
      expect(Object.keys(state)).toEqual(['k1']);
      expect(state.k1!.metas[0]).toMatchObject({ x: 1, phx_ref: expect.any(String) as string });

      tracker.close();
      const diff = await until(() => watcher.messages().find((m) => m.event === 'presence_diff'), 5000, 'leave diff');
      expect(diff.payload).toEqual({ joins: {}, leaves: { k1: { metas: [state.k1!.metas[0]] } } });
    } finally {
      watcher.close();
    }
  });

  it('refuses a track whose payload is not an object, and an unknown presence event', async () => {
    const topic = `realtime:${uniqueTopic('rtp-bad')}`;
    const raw = await RawSocket.open('2.0.0');
    try {
      await raw.join(topic, '1');
      raw.push('1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: [1, 2] });
      raw.push('1', '3', topic, 'presence', { type: 'presence', event: 'wave' });
      expect(await raw.waitReply('2')).toEqual({
        status: 'error',
        response: { reason: 'Presence track payload must be a map' },
      });
      expect(await raw.waitReply('3')).toMatchObject({ status: 'error' });
    } finally {
      raw.close();
    }
  });
});

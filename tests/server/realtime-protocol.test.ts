import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { createClient } from '@supabase/supabase-js';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultConfig } from '../../server/config.ts';
import { createGateway } from '../../server/gateway/server.ts';
import { demoKeys, signJwt } from '../../server/jwt.ts';
import { createPool } from '../../server/postgres/pool.ts';
import type {
  ChangeBinding,
  ChangeData,
  ChangeFeed,
  ChangeSubscriberIdentity,
} from '../../server/realtime/changes/types.ts';
import { createRealtimeService, type RealtimeService } from '../../server/realtime/index.ts';
import { encodeUserBroadcastPush } from '../../server/realtime/protocol.ts';
import { backendInfo } from '../setup/clients.ts';
import {
  RawSocket,
  sleep,
  subscribe,
  subscribed,
  uniqueTopic,
  until,
  userToken,
  type TestVsn,
} from './realtime-helpers.ts';

/**
 * The socket protocol and its protections, against a second gateway that mounts only
 * the realtime service with short limits (idle 2 s, 20 messages/s, 64 KB of unsent
 * bytes) and an in-memory change feed standing in for server/realtime/changes.
 */

interface StubSubscription {
  identity: ChangeSubscriberIdentity;
  bindings: ChangeBinding[];
  deliver: (ids: number[], data: ChangeData) => void;
  unsubscribed: boolean;
}

function stubFeed() {
  const subscriptions: StubSubscription[] = [];
  const state = { started: false, closed: false };
  const feed: ChangeFeed = {
    validate: (bindings) =>
      Promise.resolve(
        bindings.some((b) => b.table === 'missing_table')
          ? 'Unable to subscribe to changes with given parameters'
          : null,
      ),
    subscribe(identity, bindings, deliver) {
      const sub: StubSubscription = { identity, bindings, deliver, unsubscribed: false };
      subscriptions.push(sub);
      return {
        updateIdentity: (next) => (sub.identity = next),
        unsubscribe: () => (sub.unsubscribed = true),
      };
    },
    ready: () => Promise.resolve(),
    start: () => ((state.started = true), Promise.resolve()),
    close: () => ((state.closed = true), Promise.resolve()),
  };
  return { feed, subscriptions, state };
}

const logs: string[] = [];
const stub = stubFeed();
let pool: pg.Pool;
let service: RealtimeService;
let gateway: http.Server;
let url: string;
const sockets: RawSocket[] = [];

async function raw(vsn: TestVsn, keepAlive: number | undefined = 300): Promise<RawSocket> {
  const socket = await RawSocket.open(vsn, { url, ...(keepAlive ? { keepAlive } : {}) });
  sockets.push(socket);
  return socket;
}

beforeAll(async () => {
  const info = backendInfo();
  const config = defaultConfig({ jwtSecret: info.jwtSecret, logRequests: false, dataDir: info.dataDir });
  pool = createPool(info.adminDatabaseUrl, 4);
  const keys = demoKeys(info.jwtSecret);
  service = createRealtimeService(
    {
      config,
      pool,
      databaseUrl: info.databaseUrl,
      adminDatabaseUrl: info.adminDatabaseUrl,
      ...keys,
      apiUrl: () => url,
      log: (line) => logs.push(line),
    },
    {
      options: {
        idleTimeoutMs: 2000,
        messagesPerSecond: 20,
        closeAfterMessagesPerSecond: 40,
        maxBufferedBytes: 64 * 1024,
        maxChannelsPerConnection: 3,
      },
      feed: stub.feed,
    },
  );
  await service.start?.();
  gateway = createGateway([service], { jwtSecret: info.jwtSecret, logRequests: false, log: (line) => logs.push(line) });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

afterAll(async () => {
  await service.close?.();
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
  await pool.end();
});

describe('the Phoenix socket', () => {
  it('answers heartbeats in each version framing', async () => {
    const v2 = await raw('2.0.0');
    v2.ws.send('[null,"1","phoenix","heartbeat",{}]');
    await until(() => v2.frames.length === 1, 3000, 'v2 heartbeat reply');
    expect(v2.frames[0]).toEqual([null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
    const v1 = await raw('1.0.0');
    v1.ws.send('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7"}');
    await until(() => v1.frames.length === 1, 3000, 'v1 heartbeat reply');
    expect(v1.frames[0]).toEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '7',
    });
  });

  it('refuses upgrades with a bad apikey or an unknown protocol version', async () => {
    const refused = (query: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
        ws.on('error', () => undefined);
      });
    expect(await refused(`apikey=${signJwt({ role: 'anon', exp: 1 }, backendInfo().jwtSecret)}&vsn=2.0.0`)).toBe(401);
    expect(await refused(`apikey=${backendInfo().anonKey}&vsn=3.0.0`)).toBe(403);
  });

  it('closes a socket silent past the idle timeout and drops its presence; heartbeats keep one open', async () => {
    const topic = `realtime:${uniqueTopic('rtproto-idle')}`;
    const idle = await raw('2.0.0', 0);
    const alive = await raw('2.0.0');
    {
      await alive.join(topic, '1', { config: { presence: { enabled: true, key: 'alive' } } });
      await idle.join(topic, '1', { config: { presence: { enabled: true, key: 'idle' } } });
      idle.push('1', '2', topic, 'presence', { type: 'presence', event: 'track', payload: {} });
      await idle.waitReply('2');
      await until(() => idle.closed, 8000, 'idle close');
      const leave = await until(
        () =>
          alive
            .messages()
            .find((m) => m.event === 'presence_diff' && Object.keys(m.payload.leaves as object).length > 0),
        3000,
        'presence leave',
      );
      expect(Object.keys(leave.payload.leaves as object)).toEqual(['idle']);
      await sleep(2500);
      expect(alive.closed).toBeNull();
    }
  });

  it('answers malformed frames with an error or a log line, and keeps serving everyone', async () => {
    const topic = `realtime:${uniqueTopic('rtproto-bad')}`;
    const bad = await raw('2.0.0');
    const v1 = await raw('1.0.0');
    const good = await raw('2.0.0');
    await good.join(topic, '1');
    await bad.join(topic, '1');
    const before = logs.length;
    bad.ws.send('{not json');
    bad.ws.send('["1","2","realtime:x"]');
    bad.ws.send('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"3"}');
    bad.ws.send('["1","4",42,"phx_join",{}]');
    bad.ws.send('["1","5","realtime:x","broadcast","not an object"]');
    bad.ws.send(Buffer.from([9, 1, 2, 3]));
    bad.ws.send(encodeUserBroadcastPush('1', '6', topic, 'e', Buffer.from('{}')).subarray(0, 10));
    bad.ws.send(encodeUserBroadcastPush('1', '7', topic, 'e', Buffer.from('{broken')));
    bad.ws.send(Buffer.alloc(0));
    v1.ws.send(Buffer.from([3, 0, 0, 0, 0, 0, 1]));
    v1.ws.send('[null,"8","phoenix","heartbeat",{}]');

    expect(await bad.waitReply('2')).toEqual({
      status: 'error',
      response: { reason: 'malformed message: expected 5 elements, got 3' },
    });
    expect(await bad.waitReply('5')).toEqual({
      status: 'error',
      response: { reason: 'malformed message: payload must be an object' },
    });
    expect(await bad.waitReply('7')).toEqual({
      status: 'error',
      response: { reason: 'malformed binary message: payload is not valid JSON' },
    });
    await until(() => logs.length - before >= 11, 3000, 'log lines');
    expect(logs.slice(before).join('\n')).toMatch(/invalid JSON[\s\S]*unknown kind 9[\s\S]*truncated/);

    // Both sockets still work, and so does everyone else.
    bad.ws.send('[null,"9","phoenix","heartbeat",{}]');
    expect(await bad.waitReply('9')).toMatchObject({ status: 'ok' });
    v1.ws.send('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"10"}');
    expect(await v1.waitReply('10')).toMatchObject({ status: 'ok' });
    bad.push('1', '11', topic, 'broadcast', { type: 'broadcast', event: 'still', payload: {} });
    await until(() => good.messages().some((m) => m.event === 'broadcast'), 3000, 'broadcast after garbage');
  });

  it('refuses joins past the channel limit of one socket, and rejoins of a joined topic replace it', async () => {
    const socket = await raw('2.0.0');
    for (const n of [1, 2, 3])
      expect(await socket.join(`realtime:rtproto-many-${n}`, `j${n}`)).toMatchObject({ status: 'ok' });
    expect(await socket.join('realtime:rtproto-many-4', 'j4')).toEqual({
      status: 'error',
      response: { reason: 'ChannelRateLimitReached: Too many channels' },
    });
    // Joining a joined topic again closes the old channel (phx_close for its join ref) and joins anew.
    expect(await socket.join('realtime:rtproto-many-1', 'j5')).toMatchObject({ status: 'ok' });
    expect(socket.messages().find((m) => m.event === 'phx_close')).toMatchObject({
      joinRef: 'j1',
      topic: 'realtime:rtproto-many-1',
    });
    socket.push('j5', 'l1', 'realtime:rtproto-many-1', 'phx_leave', {});
    expect(await socket.waitReply('l1')).toEqual({ status: 'ok', response: {} });
    expect(await socket.join('realtime:rtproto-many-4', 'j6')).toMatchObject({ status: 'ok' });
  });

  it('survives a burst of arbitrary frames on the shared backend and keeps answering', async () => {
    const topic = `realtime:${uniqueTopic('rtproto-fuzz')}`;
    const victim = await RawSocket.open('2.0.0');
    const bystander = await RawSocket.open('1.0.0');
    sockets.push(victim, bystander);
    await victim.join(topic, '1');
    await bystander.join(topic, '1');
    const text = fc.oneof(
      fc.string(),
      fc
        .tuple(
          fc.jsonValue(),
          fc.jsonValue(),
          fc.constant(topic),
          fc.constantFrom('broadcast', 'presence', 'access_token', 'phx_join', 'x'),
          fc.jsonValue(),
        )
        .map((t) => JSON.stringify(t)),
    );
    const frames = fc.sample(
      fc.oneof(
        text,
        fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)),
      ),
      { numRuns: 150, seed: 7 },
    );
    for (const frame of frames) victim.ws.send(frame);
    victim.push(null, 'alive', 'phoenix', 'heartbeat', {});
    expect(await victim.waitReply('alive')).toMatchObject({ status: 'ok' });
    bystander.push(null, 'alive', 'phoenix', 'heartbeat', {});
    expect(await bystander.waitReply('alive')).toMatchObject({ status: 'ok' });
  });

  it('answers frames for a topic the socket has not joined with "unmatched topic"', async () => {
    const socket = await raw('2.0.0');
    socket.push('1', '2', 'realtime:nowhere', 'broadcast', { type: 'broadcast', event: 'e', payload: {} });
    expect(await socket.waitReply('2')).toEqual({ status: 'error', response: { reason: 'unmatched topic' } });
    socket.push('1', '3', 'elsewhere', 'phx_join', {});
    expect(await socket.waitReply('3')).toEqual({ status: 'error', response: { reason: 'unmatched topic' } });
  });

  it('refuses messages past the rate limit, then closes the socket; others are unaffected', async () => {
    const topic = `realtime:${uniqueTopic('rtproto-rate')}`;
    const flood = await raw('2.0.0', 0);
    const calm = await raw('2.0.0');
    await calm.join(topic, '1');
    await flood.join(topic, '1', { config: { broadcast: { ack: true } } });
    for (let i = 0; i < 30; i += 1)
      flood.push('1', `r${i}`, topic, 'broadcast', { type: 'broadcast', event: 'n', payload: { i } });
    await until(() => flood.replyTo('r29'), 3000, 'replies');
    const statuses = Array.from({ length: 30 }, (_, i) => flood.replyTo(`r${i}`)!.status);
    // 20 frames a second; the join may have used one of this second's.
    const accepted = statuses.filter((s) => s === 'ok').length;
    expect(accepted).toBeGreaterThanOrEqual(19);
    expect(accepted).toBeLessThanOrEqual(20);
    expect(statuses.slice(0, 19).every((s) => s === 'ok')).toBe(true);
    expect(flood.replyTo('r29')).toEqual({ status: 'error', response: { reason: 'Too many messages per second' } });
    for (let i = 30; i < 60; i += 1)
      flood.push('1', `r${i}`, topic, 'broadcast', { type: 'broadcast', event: 'n', payload: { i } });
    await until(() => flood.closed, 3000, 'rate limit close');
    expect(flood.closed).toEqual({ code: 1008, reason: 'Too many messages per second' });
    calm.ws.send('[null,"hb","phoenix","heartbeat",{}]');
    expect(await calm.waitReply('hb')).toMatchObject({ status: 'ok' });
    expect(calm.messages().filter((m) => m.event === 'broadcast')).toHaveLength(accepted);
  });

  it('cuts off a client that stops reading, without delaying the others', async () => {
    const topic = uniqueTopic('rtproto-slow');
    const slow = await raw('2.0.0');
    const fast = await raw('2.0.0');
    await slow.join(`realtime:${topic}`, '1');
    await fast.join(`realtime:${topic}`, '1');
    // Stop reading: the kernel buffers fill, then the server's send buffer grows.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const blob = 'z'.repeat(32 * 1024);
    for (let i = 0; i < 200; i += 1) {
      const res = await fetch(`${url}/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/blob`, {
        method: 'POST',
        headers: { apikey: backendInfo().anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ i, blob }),
      });
      expect(res.status).toBe(202);
    }
    await until(
      () => fast.messages().filter((m) => m.event === 'broadcast').length === 200,
      10_000,
      'fast client catches up',
    );
    expect(logs.some((l) => l.includes('closing a slow client'))).toBe(true);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await until(() => slow.closed, 5000, 'slow client closed');
  });
});

describe('postgres_changes through the feed interface', () => {
  const client = () =>
    createClient(url, backendInfo().anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never, vsn: '1.0.0' },
    });

  it('replies with binding ids in the client order, says Subscribed to PostgreSQL, and delivers', async () => {
    const sb = client();
    try {
      const token = userToken();
      await sb.realtime.setAuth(token);
      const topic = uniqueTopic('rtproto-pg');
      const changes: unknown[] = [];
      const system: unknown[] = [];
      const channel = sb
        .channel(topic)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notes' }, (p) =>
          changes.push(['insert', p]),
        )
        .on('postgres_changes', { event: '*', schema: 'public', table: 'notes', filter: 'id=eq.1' }, (p) =>
          changes.push(['any', p]),
        )
        .on('system', {}, (m) => system.push(m));
      await subscribed(channel);
      await until(() => system.length === 1, 3000, 'system message');
      expect(system[0]).toEqual({
        channel: topic,
        extension: 'postgres_changes',
        message: 'Subscribed to PostgreSQL',
        status: 'ok',
      });

      const sub = stub.subscriptions.at(-1)!;
      expect(sub.bindings.map((b) => [b.event, b.table, b.filter])).toEqual([
        ['INSERT', 'notes', undefined],
        ['*', 'notes', 'id=eq.1'],
      ]);
      expect(sub.identity.role).toBe('authenticated');
      const data: ChangeData = {
        schema: 'public',
        table: 'notes',
        commit_timestamp: '2026-01-01T00:00:00Z',
        type: 'INSERT',
        columns: [{ name: 'id', type: 'int8' }],
        record: { id: 1 },
        errors: null,
      };
      sub.deliver([sub.bindings[0]!.id, sub.bindings[1]!.id], data);
      await until(() => changes.length === 2, 3000, 'both callbacks');
      expect(changes[0]).toEqual([
        'insert',
        expect.objectContaining({ eventType: 'INSERT', new: { id: 1 }, table: 'notes' }),
      ]);

      const next = userToken();
      await sb.realtime.setAuth(next);
      await until(
        () =>
          (sub.identity.claims as { sub?: string }).sub !==
          (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub,
        3000,
        'identity update',
      );
      await sb.removeChannel(channel);
      await until(() => sub.unsubscribed, 3000, 'unsubscribe');
    } finally {
      await sb.removeAllChannels();
    }
  });

  it('refuses a join whose bindings the feed rejects', async () => {
    const sb = client();
    try {
      const channel = sb
        .channel(uniqueTopic('rtproto-pg'))
        .on('postgres_changes', { event: '*', schema: 'public', table: 'missing_table' }, () => undefined);
      const result = await subscribe(channel);
      expect(result.status).toBe('CHANNEL_ERROR');
      expect(result.error?.message).toBe('Unable to subscribe to changes with given parameters');
    } finally {
      await sb.removeAllChannels();
    }
  });
});

describe('shutdown', () => {
  it('lets the gateway end WebSocket clients when it closes its connections', async () => {
    const socket = await raw('1.0.0');
    await socket.join(`realtime:${uniqueTopic('rtproto-gw')}`, '1');
    gateway.closeAllConnections();
    await until(() => socket.closed, 3000, 'socket closed by the gateway');
    await until(() => service.connectionCount === 0, 3000, 'connection released');
  });

  it('closes every socket and the change feed', async () => {
    const socket = await raw('2.0.0');
    await socket.join(`realtime:${uniqueTopic('rtproto-end')}`, '1');
    expect(stub.state.started).toBe(true);
    await service.close?.();
    await until(() => socket.closed, 3000, 'socket closed');
    expect(socket.closed?.code).toBe(1001);
    expect(stub.state.closed).toBe(true);
  });
});

import { randomUUID } from 'node:crypto';
import type { RealtimeChannel } from '@supabase/supabase-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { adminDb, backendInfo, signedInClient } from '../setup/clients.ts';
import {
  closeClients,
  realtimeClient,
  sleep,
  subscribe,
  subscribed,
  uniqueTopic,
  until,
  userToken,
  VSNS,
  type TestVsn,
} from './realtime-helpers.ts';

/**
 * Private channels are authorised by RLS on realtime.messages, as on hosted: SELECT to
 * join and receive, INSERT to send broadcast (extension 'broadcast') and track presence
 * (extension 'presence'). Topics here use prefixes no other test file uses.
 */
beforeAll(async () => {
  const db = await adminDb();
  try {
    await db.query(`
      drop policy if exists rtpriv_read on realtime.messages;
      create policy rtpriv_read on realtime.messages for select to authenticated using (
        split_part(realtime.topic(), ':', 1) in ('rtpriv-open', 'rtpriv-ro', 'rtpriv-nopres')
        or realtime.topic() = 'rtpriv-user:' || (auth.jwt() ->> 'sub')
      );
      drop policy if exists rtpriv_write on realtime.messages;
      create policy rtpriv_write on realtime.messages for insert to authenticated with check (
        split_part(realtime.topic(), ':', 1) = 'rtpriv-open'
        or realtime.topic() = 'rtpriv-user:' || (auth.jwt() ->> 'sub')
        or (split_part(realtime.topic(), ':', 1) = 'rtpriv-nopres' and extension = 'broadcast')
      );`);
  } finally {
    await db.end();
  }
});

afterEach(closeClients);

type Received = { event: string; [key: string]: unknown };

async function privateChannel(vsn: TestVsn, topic: string, token?: string, config: Record<string, unknown> = {}) {
  const client = await realtimeClient(vsn, token);
  const channel = client.channel(topic, { config: { private: true, ...config } });
  const got: Received[] = [];
  const system: Record<string, unknown>[] = [];
  channel.on('broadcast', { event: '*' }, (m) => got.push(m));
  channel.on('system', {}, (m: Record<string, unknown>) => system.push(m));
  return { client, channel, got, system };
}

function statusLog(channel: RealtimeChannel): string[] {
  const statuses: string[] = [];
  channel.subscribe((status) => statuses.push(status));
  return statuses;
}

describe.each(VSNS)('private channels over vsn %s', (vsn) => {
  it('refuses a join the SELECT policy does not allow, with hosted reasons', async () => {
    const topic = uniqueTopic('rtpriv-open');
    const anon = await privateChannel(vsn, topic);
    const refused = await subscribe(anon.channel);
    expect(refused.status).toBe('CHANNEL_ERROR');
    expect(refused.error?.message).toBe(
      `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`,
    );

    const someoneElse = await privateChannel(vsn, `rtpriv-user:${randomUUID()}`, userToken());
    expect((await subscribe(someoneElse.channel)).error?.message).toMatch(
      /^Unauthorized: You do not have permissions to read/,
    );

    const forged = await privateChannel(
      vsn,
      topic,
      signJwt({ role: 'authenticated', exp: 4102444800 }, 'a-different-secret-of-at-least-32-chars'),
    );
    expect((await subscribe(forged.channel)).error?.message).toBe(
      'JwtSignatureError: Failed to validate JWT signature',
    );

    const expired = await privateChannel(vsn, topic, userToken(randomUUID(), -30));
    expect((await subscribe(expired.channel)).error?.message).toMatch(
      /^InvalidJWTToken: Token has expired \d+ seconds ago$/,
    );

    // The public channel of the same name needs no policy.
    await subscribed((await realtimeClient(vsn)).channel(topic));
  });

  it('lets permitted users exchange broadcasts, apart from the public channel of the same name', async () => {
    const topic = uniqueTopic('rtpriv-open');
    const a = await privateChannel(vsn, topic, userToken());
    const b = await privateChannel(vsn, topic, userToken());
    const pub = await privateChannel(vsn, topic, undefined, { private: false });
    await Promise.all([subscribed(a.channel), subscribed(b.channel), subscribed(pub.channel)]);
    await a.channel.send({ type: 'broadcast', event: 'secret', payload: { n: 1 } });
    await pub.channel.send({ type: 'broadcast', event: 'public', payload: { n: 2 } });
    await until(() => b.got.length === 1, 5000, 'private broadcast');
    await sleep(150);
    expect(b.got.map((m) => m.event)).toEqual(['secret']);
    expect(pub.got).toEqual([]);
  });

  it('refuses sends without an INSERT policy but still delivers what others may send', async () => {
    const topic = uniqueTopic('rtpriv-ro');
    const reader = await privateChannel(vsn, topic, userToken(), { broadcast: { ack: true } });
    await subscribed(reader.channel);
    expect(await reader.channel.send({ type: 'broadcast', event: 'x', payload: {} })).toBe('error');

    const { url, anonKey, serviceRoleKey } = backendInfo();
    const single = (key: string) =>
      fetch(`${url}/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/from-http?private=true`, {
        method: 'POST',
        headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ via: key === anonKey ? 'anon' : 'service' }),
      });
    expect((await single(anonKey)).status).toBe(403);
    const batch = await fetch(`${url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic, event: 'from-batch', payload: { via: 'anon' }, private: true }] }),
    });
    expect(batch.status).toBe(202);
    expect((await single(serviceRoleKey)).status).toBe(202);
    await until(() => reader.got.length >= 1, 5000, 'service broadcast');
    await sleep(150);
    expect(reader.got.map((m) => [m.event, m.payload])).toEqual([['from-http', { via: 'service' }]]);
  });

  it('needs an INSERT policy for extension presence to track', async () => {
    const blocked = await privateChannel(vsn, uniqueTopic('rtpriv-nopres'), userToken());
    blocked.channel.on('presence', { event: 'sync' }, () => undefined);
    await subscribed(blocked.channel);
    expect(await blocked.channel.track({ here: true })).toBe('error');

    const open = await privateChannel(vsn, uniqueTopic('rtpriv-open'), userToken(), { presence: { key: 'me' } });
    open.channel.on('presence', { event: 'sync' }, () => undefined);
    await subscribed(open.channel);
    expect(await open.channel.track({ here: true })).toBe('ok');
    await until(() => open.channel.presenceState().me, 5000, 'own presence');
  });

  it('keeps the channel on a refreshed token and ends it with a system message on an expired one', async () => {
    const sub = randomUUID();
    const topic = `rtpriv-user:${sub}`;
    const me = await privateChannel(vsn, topic, userToken(sub));
    const statuses = statusLog(me.channel);
    await until(() => statuses.includes('SUBSCRIBED'), 5000, 'subscribed');

    await me.client.realtime.setAuth(userToken(sub, 7200));
    const { serviceRoleKey, url } = backendInfo();
    const send = () =>
      fetch(`${url}/realtime/v1/api/broadcast`, {
        method: 'POST',
        headers: {
          apikey: serviceRoleKey,
          authorization: `Bearer ${serviceRoleKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ messages: [{ topic, event: 'after-refresh', payload: {}, private: true }] }),
      });
    await send();
    await until(() => me.got.length > 0, 5000, 'delivery after refresh');

    expect(me.system).toEqual([]);
    expect(statuses).not.toContain('CLOSED');

    await me.client.realtime.setAuth(userToken(sub, -5));
    const notice = await until(() => me.system.find((m) => m.status === 'error'), 5000, 'system error');
    expect(notice).toMatchObject({ extension: 'system', status: 'error', channel: topic });
    expect(notice.message).toMatch(/^Token has expired \d+ seconds ago$/);
    await until(() => statuses.includes('CLOSED'), 5000, 'closed');
  });

  it('ends the channel when a new token may no longer read it', async () => {
    const sub = randomUUID();
    const me = await privateChannel(vsn, `rtpriv-user:${sub}`, userToken(sub));
    const statuses = statusLog(me.channel);
    await until(() => statuses.includes('SUBSCRIBED'), 5000, 'subscribed');
    await me.client.realtime.setAuth(userToken(randomUUID()));
    const notice = await until(() => me.system.find((m) => m.status === 'error'), 5000, 'system error');
    expect(notice.message).toBe(`You no longer have permission to read from this Channel topic: rtpriv-user:${sub}`);
    await until(() => statuses.includes('CLOSED'), 5000, 'closed');
  });
});

describe('token expiry while joined', () => {
  it('closes a channel when its token expires, as hosted re-confirms tokens', async () => {
    const me = await privateChannel('2.0.0', uniqueTopic('rtpriv-open'), userToken(randomUUID(), 4));
    const statuses = statusLog(me.channel);
    await until(() => statuses.includes('SUBSCRIBED'), 4000, 'subscribed');
    const notice = await until(() => me.system.find((m) => m.status === 'error'), 10_000, 'expiry notice');
    expect(notice.message).toMatch(/^Token has expired \d+ seconds ago$/);
    await until(() => statuses.includes('CLOSED'), 5000, 'closed');
  });
});

describe('with a real session from the auth service', () => {
  it('joins with the session token, survives a refresh and loses the channel on sign-out', async () => {
    const { client, user } = await signedInClient('rt', { vsn: '2.0.0' });
    try {
      const topic = `rtpriv-user:${user.id}`;
      const channel = client.channel(topic, { config: { private: true } });
      const got: Received[] = [];
      const system: Record<string, unknown>[] = [];
      channel.on('broadcast', { event: '*' }, (m) => got.push(m));
      channel.on('system', {}, (m: Record<string, unknown>) => system.push(m));
      const statuses = statusLog(channel);
      await until(() => statuses.includes('SUBSCRIBED'), 5000, 'subscribed with the session');

      const { error } = await client.auth.refreshSession();
      expect(error).toBeNull();
      await sleep(200);
      expect(await channel.send({ type: 'broadcast', event: 'after-refresh', payload: {} })).toBe('ok');
      const { serviceRoleKey, url } = backendInfo();
      await fetch(`${url}/realtime/v1/api/broadcast`, {
        method: 'POST',
        headers: {
          apikey: serviceRoleKey,
          authorization: `Bearer ${serviceRoleKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ messages: [{ topic, event: 'to-me', payload: {}, private: true }] }),
      });
      await until(() => got.some((m) => m.event === 'to-me'), 5000, 'delivery after refresh');
      expect(system).toEqual([]);

      // Signing out puts the anon key back on the socket: anon may not read the topic.
      await client.auth.signOut();
      const notice = await until(() => system.find((m) => m.status === 'error'), 5000, 'system error');
      expect(notice.message).toBe(`You no longer have permission to read from this Channel topic: ${topic}`);
      await until(() => statuses.includes('CLOSED'), 5000, 'closed');
    } finally {
      await client.removeAllChannels();
    }
  });
});

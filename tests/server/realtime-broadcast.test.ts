import { afterEach, describe, expect, it } from 'vitest';
import { decodeBinary, encodeUserBroadcastPush } from '../../server/realtime/protocol.ts';
import { backendInfo } from '../setup/clients.ts';
import {
  closeClients,
  RawSocket,
  realtimeClient,
  sleep,
  subscribed,
  uniqueTopic,
  until,
  VSNS,
} from './realtime-helpers.ts';

type Received = { event: string; [key: string]: unknown };

afterEach(closeClients);

describe.each(VSNS)('broadcast over vsn %s', (vsn) => {
  it('reaches every other member, and the sender only with self: true', async () => {
    const topic = uniqueTopic('rtb');
    const got = { quiet: [] as Received[], echo: [] as Received[], other: [] as Received[] };
    const quiet = (await realtimeClient(vsn)).channel(topic, { config: { broadcast: { self: false } } });
    const echo = (await realtimeClient(vsn)).channel(topic, { config: { broadcast: { self: true } } });
    const other = (await realtimeClient(vsn)).channel(topic);
    quiet.on('broadcast', { event: '*' }, (m) => got.quiet.push(m));
    echo.on('broadcast', { event: '*' }, (m) => got.echo.push(m));
    other.on('broadcast', { event: 'msg' }, (m) => got.other.push(m));
    await Promise.all([subscribed(quiet), subscribed(echo), subscribed(other)]);

    expect(await quiet.send({ type: 'broadcast', event: 'msg', payload: { from: 'quiet', n: 1 } })).toBe('ok');
    expect(await echo.send({ type: 'broadcast', event: 'msg', payload: { from: 'echo', n: 2 } })).toBe('ok');

    await until(() => got.other.length === 2 && got.quiet.length === 1 && got.echo.length === 2, 5000, 'broadcasts');
    // A later message proves the earlier ones had time to arrive anywhere they were going.
    await other.send({ type: 'broadcast', event: 'marker', payload: {} });
    await until(() => got.quiet.some((m) => m.event === 'marker'), 5000, 'marker');
    // Two senders on two sockets: their messages may arrive in either order.
    const sorted = (list: Received[]) =>
      list
        .filter((m) => m.event === 'msg')
        .map((m) => m.payload as { n: number })
        .sort((a, b) => a.n - b.n);
    expect(sorted(got.other)).toEqual([
      { from: 'quiet', n: 1 },
      { from: 'echo', n: 2 },
    ]);
    expect(sorted(got.quiet)).toEqual([{ from: 'echo', n: 2 }]);
    expect(sorted(got.echo)).toEqual([
      { from: 'quiet', n: 1 },
      { from: 'echo', n: 2 },
    ]);
    expect(got.other[0]).toMatchObject({ type: 'broadcast', event: 'msg' });
  });

  it('acknowledges a send when ack is on, and only then waits for the reply', async () => {
    const topic = uniqueTopic('rtb-ack');
    const sender = (await realtimeClient(vsn)).channel(topic, { config: { broadcast: { ack: true } } });
    await subscribed(sender);
    // With ack on, the client resolves 'ok' only on the server's reply; without one it says 'timed out'.
    expect(await sender.send({ type: 'broadcast', event: 'msg', payload: { a: 1 } }, { timeout: 5000 })).toBe('ok');
  });

  it('refuses a send over the 256 KB payload limit (ack: error) and delivers nothing', async () => {
    const topic = uniqueTopic('rtb-limit');
    const got: Received[] = [];
    const listener = (await realtimeClient(vsn)).channel(topic);
    listener.on('broadcast', { event: '*' }, (m) => got.push(m));
    const sender = (await realtimeClient(vsn)).channel(topic, { config: { broadcast: { ack: true } } });
    await Promise.all([subscribed(listener), subscribed(sender)]);
    expect(await sender.send({ type: 'broadcast', event: 'big', payload: { blob: 'x'.repeat(257 * 1024) } })).toBe(
      'error',
    );
    expect(await sender.send({ type: 'broadcast', event: 'fits', payload: { blob: 'x'.repeat(200 * 1024) } })).toBe(
      'ok',
    );
    await until(() => got.length === 1, 5000, 'the message that fits');
    expect(got[0]!.event).toBe('fits');
  });

  it('delivers broadcasts sent over HTTP, in both endpoint forms', async () => {
    const topic = uniqueTopic('rtb-http');
    const got: Received[] = [];
    const listener = (await realtimeClient(vsn)).channel(topic);
    listener.on('broadcast', { event: '*' }, (m) => got.push(m));
    await subscribed(listener);

    const sender = await realtimeClient(vsn);
    const unjoined = sender.channel(topic);
    // send() on a channel that is not joined falls back to POST /api/broadcast.
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      expect(await unjoined.send({ type: 'broadcast', event: 'batch', payload: { via: 'batch' } })).toBe('ok');
    } finally {
      console.warn = warn;
    }
    expect(await sender.channel(topic).httpSend('single', { via: 'single' })).toEqual({ success: true });
    await until(() => got.length === 2, 5000, 'HTTP broadcasts');
    expect(got.map((m) => [m.event, m.payload])).toEqual([
      ['batch', { via: 'batch' }],
      ['single', { via: 'single' }],
    ]);
  });
});

describe('broadcast across protocol versions and binary frames', () => {
  it('sends client broadcasts as kind 4 binary frames to vsn 2.0.0 and as JSON to vsn 1.0.0', async () => {
    const topic = uniqueTopic('rtb-bin');
    const v2 = await RawSocket.open('2.0.0');
    const v1 = await RawSocket.open('1.0.0');
    try {
      expect(await v2.join(`realtime:${topic}`, '1')).toMatchObject({ status: 'ok' });
      expect(await v1.join(`realtime:${topic}`, '1')).toMatchObject({ status: 'ok' });
      const sender = (await realtimeClient('2.0.0')).channel(topic);
      await subscribed(sender);
      await sender.send({ type: 'broadcast', event: 'hello', payload: { text: 'hi ✓' } });

      const binary = await until(() => v2.frames.find((f): f is Buffer => Buffer.isBuffer(f)), 5000, 'binary frame');
      expect(binary[0]).toBe(4);
      // kind, topic size, event size, metadata size, encoding (1 = JSON), then the fields; the
      // metadata is the server's stamp of the sender (null: an anon socket).
      const full = `realtime:${topic}`;
      const meta = JSON.stringify({ sender: null });
      expect(binary.subarray(0, 5)).toEqual(Buffer.from([4, Buffer.byteLength(full), 5, meta.length, 1]));
      expect(binary.subarray(5, 5 + full.length).toString()).toBe(full);
      expect(binary.subarray(5 + full.length + 5, 5 + full.length + 5 + meta.length).toString()).toBe(meta);
      expect(JSON.parse(binary.subarray(5 + full.length + 5 + meta.length).toString())).toEqual({ text: 'hi ✓' });

      const json = await until(() => v1.messages().find((m) => m.event === 'broadcast'), 5000, 'v1 broadcast');
      expect(json).toMatchObject({
        topic: full,
        payload: { type: 'broadcast', event: 'hello', payload: { text: 'hi ✓' } },
      });
    } finally {
      v1.close();
      v2.close();
    }
  });

  it('accepts kind 3 frames with JSON and binary payloads from a raw client, and acks them', async () => {
    const topic = `realtime:${uniqueTopic('rtb-raw')}`;
    const raw = await RawSocket.open('2.0.0');
    const got: Received[] = [];
    const listener = (await realtimeClient('2.0.0')).channel(topic.slice('realtime:'.length));
    listener.on('broadcast', { event: '*' }, (m) => got.push(m));
    await subscribed(listener);
    try {
      await raw.join(topic, '1', { config: { broadcast: { ack: true } } });
      raw.ws.send(encodeUserBroadcastPush('1', '2', topic, 'json-event', Buffer.from('{"x":1}')));
      raw.ws.send(encodeUserBroadcastPush('1', '3', topic, 'bin-event', Buffer.from([1, 2, 3]), 'binary'));
      expect(await raw.waitReply('2')).toEqual({ status: 'ok', response: {} });
      expect(await raw.waitReply('3')).toEqual({ status: 'ok', response: {} });
      await until(() => got.length === 2, 5000, 'both broadcasts');
      expect(got[0]).toMatchObject({ event: 'json-event', payload: { x: 1 } });
      expect(got[1]!.event).toBe('bin-event');
      expect([...new Uint8Array(got[1]!.payload as ArrayBuffer)]).toEqual([1, 2, 3]);
    } finally {
      raw.close();
    }
  });

  it('carries ArrayBuffer payloads between vsn 2.0.0 clients and leaves vsn 1.0.0 clients out', async () => {
    const topic = uniqueTopic('rtb-ab');
    const got = { v1: [] as Received[], v2: [] as Received[] };
    const one = (await realtimeClient('1.0.0')).channel(topic);
    const two = (await realtimeClient('2.0.0')).channel(topic);
    const sender = (await realtimeClient('2.0.0')).channel(topic);
    one.on('broadcast', { event: '*' }, (m) => got.v1.push(m));
    two.on('broadcast', { event: '*' }, (m) => got.v2.push(m));
    await Promise.all([subscribed(one), subscribed(two), subscribed(sender)]);
    await sender.send({ type: 'broadcast', event: 'bytes', payload: new Uint8Array([7, 8, 9]).buffer });
    await sender.send({ type: 'broadcast', event: 'json', payload: { after: true } });
    await until(() => got.v2.length === 2 && got.v1.length === 1, 5000, 'deliveries');
    expect([...new Uint8Array(got.v2[0]!.payload as ArrayBuffer)]).toEqual([7, 8, 9]);
    // JSON has no form for raw bytes, so vsn 1.0.0 only sees the JSON message (as on hosted).
    expect(got.v1.map((m) => m.event)).toEqual(['json']);
  });

  it('lets vsn 1.0.0 and 2.0.0 clients talk to each other through supabase-js', async () => {
    const topic = uniqueTopic('rtb-mix');
    const got = { v1: [] as Received[], v2: [] as Received[] };
    const one = (await realtimeClient('1.0.0')).channel(topic);
    const two = (await realtimeClient('2.0.0')).channel(topic);
    one.on('broadcast', { event: 'm' }, (m) => got.v1.push(m));
    two.on('broadcast', { event: 'm' }, (m) => got.v2.push(m));
    await Promise.all([subscribed(one), subscribed(two)]);
    await one.send({ type: 'broadcast', event: 'm', payload: { from: 1 } });
    await two.send({ type: 'broadcast', event: 'm', payload: { from: 2 } });
    await until(() => got.v1.length === 1 && got.v2.length === 1, 5000, 'cross-version broadcasts');
    expect(got.v1[0]!.payload).toEqual({ from: 2 });
    expect(got.v2[0]!.payload).toEqual({ from: 1 });
  });

  it('answers a broadcast over the payload limit with an error and delivers nothing', async () => {
    const topic = uniqueTopic('rtb-big');
    const got: Received[] = [];
    const listener = (await realtimeClient('2.0.0')).channel(topic);
    listener.on('broadcast', { event: '*' }, (m) => got.push(m));
    await subscribed(listener);
    const raw = await RawSocket.open('2.0.0');
    try {
      await raw.join(`realtime:${topic}`, '1', { config: { broadcast: { ack: true } } });
      raw.push('1', '2', `realtime:${topic}`, 'broadcast', {
        type: 'broadcast',
        event: 'big',
        payload: { blob: 'x'.repeat(300 * 1024) },
      });
      raw.ws.send(encodeUserBroadcastPush('1', '3', `realtime:${topic}`, 'big', Buffer.alloc(300 * 1024, 1), 'binary'));
      raw.push('1', '4', `realtime:${topic}`, 'broadcast', {
        type: 'broadcast',
        event: 'small',
        payload: { ok: true },
      });
      expect(await raw.waitReply('2')).toEqual({
        status: 'error',
        response: { reason: 'Payload size exceeds tenant limit' },
      });
      expect(await raw.waitReply('3')).toEqual({
        status: 'error',
        response: { reason: 'Payload size exceeds tenant limit' },
      });
      expect(await raw.waitReply('4')).toEqual({ status: 'ok', response: {} });
      await until(() => got.length === 1, 5000, 'small broadcast');
      await sleep(100);
      expect(got.map((m) => m.event)).toEqual(['small']);
    } finally {
      raw.close();
    }
  });

  it('refuses malformed HTTP broadcasts with hosted-style 422 errors', async () => {
    const { url, anonKey } = backendInfo();
    const post = (path: string, body: string) =>
      fetch(`${url}/realtime/v1/api/broadcast${path}`, {
        method: 'POST',
        headers: { apikey: anonKey, 'content-type': 'application/json' },
        body,
      });
    const missing = await post('', JSON.stringify({ messages: [{ topic: 't', payload: {} }] }));
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({ errors: { messages: [{ event: ["can't be blank"] }] } });
    const empty = await post('', JSON.stringify({}));
    expect(empty.status).toBe(422);
    const notJson = await post('', '{nope');
    expect(notJson.status).toBe(400);
    const big = await post('/t/events/e', JSON.stringify({ blob: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(422);
    expect(await big.json()).toEqual({ errors: { payload: ['Payload size exceeds tenant limit'] } });
  });

  it('decodes what encodeUserBroadcastPush writes (codec round trip, truncation refused)', () => {
    const frame = encodeUserBroadcastPush(
      '7',
      '8',
      'realtime:r',
      'ev',
      Buffer.from('{"a":[1]}'),
      'json',
      '{"persist":true}',
    );
    const decoded = decodeBinary(frame);
    expect(decoded).toMatchObject({
      ok: true,
      message: { joinRef: '7', ref: '8', topic: 'realtime:r', event: 'broadcast' },
    });
    if (decoded.ok)
      expect(decoded.message.user).toMatchObject({
        event: 'ev',
        encoding: 'json',
        json: { a: [1] },
        metadata: { persist: true },
      });
    expect(decodeBinary(frame.subarray(0, 12))).toMatchObject({
      ok: false,
      error: 'malformed binary message: truncated fields',
    });
    expect(decodeBinary(Buffer.from([9, 0, 0]))).toMatchObject({
      ok: false,
      error: 'malformed binary message: unknown kind 9',
    });
  });
});

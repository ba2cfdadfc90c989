import { createWebSocketInspector } from '@statelyai/inspect';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { INSPECT_CLOSE, INSPECT_LIMITS } from '../../src/lib/inspection/protocol.ts';
import { projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, type AnyClient } from '../setup/clients.ts';
import {
  createSource,
  inspectUrl,
  openRaw,
  protocolEvent,
  storedCount,
  toggleMachine,
  type RawSocket,
} from './inspect-helpers.ts';

/**
 * The `inspect` edge function (supabase/functions/inspect) on the embedded runtime, with
 * the stock @statelyai/inspect WebSocket inspector and a real XState machine: events are
 * stored and fanned out to members on `inspect:<project>`; every refusal of the inspect function
 * (wrong or revoked key, oversized frame, non-protocol JSON, rate limit, revocation while
 * connected) and the POST path.
 */

vi.setConfig({ testTimeout: 120_000 });

let t: Team;
let db: pg.Client;
let project: string;
const opened: AnyClient[] = [];
const sockets: RawSocket[] = [];

beforeAll(async () => {
  t = await team();
  db = await adminDb();
  project = await projectFor(t);
});

afterAll(async () => {
  for (const s of sockets) s.ws.close();
  for (const c of opened) await c.removeAllChannels();
  await db.end();
});

interface Broadcast {
  event: string;
  payload: Record<string, unknown>;
}

/** Joins inspect:<project> as `client`; resolves with the join's outcome and what arrives. */
async function watch(client: AnyClient): Promise<{ status: string; received: Broadcast[] }> {
  opened.push(client);
  // supabase-js hands back a channel already joined on the same topic: start afresh.
  await client.removeAllChannels();
  const received: Broadcast[] = [];
  const channel = client.channel(`inspect:${project}`, { config: { private: true } });
  channel.on('broadcast', { event: '*' }, (message: { event: string; payload: Record<string, unknown> }) =>
    received.push({ event: message.event, payload: message.payload }),
  );
  const status = await new Promise<string>((resolve) =>
    channel.subscribe((state) => {
      const s = state as string;
      if (s === 'SUBSCRIBED' || s === 'CHANNEL_ERROR' || s === 'TIMED_OUT') resolve(s);
    }),
  );
  return { status, received };
}

const eventsIn = (received: Broadcast[]) =>
  received
    .filter((b) => b.event === 'events')
    .flatMap((b) => b.payload.events as { seq: number; body: { type: string } }[]);

function track(socket: RawSocket): RawSocket {
  sockets.push(socket);
  return socket;
}

async function refusal(key: string): Promise<{ status: number; body: unknown }> {
  const error = (await openRaw(key).then(
    () => {
      throw new Error('the socket opened');
    },
    (e: unknown) => e,
  )) as { status: number; text: string };
  return { status: error.status, body: JSON.parse(error.text) };
}

describe('inspect over WebSocket with the stock inspector', () => {
  it('stores a real actor run and fans it out to members only', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    const viewer = await watch(t.viewer.client);
    const outsider = await watch(t.outsider.client);
    expect(viewer.status).toBe('SUBSCRIBED');
    expect(outsider.status).not.toBe('SUBSCRIBED');

    const inspector = createWebSocketInspector({ url: inspectUrl(key) });
    const actor = createActor(toggleMachine, { inspect: inspector.inspect }).start();
    actor.send({ type: 'switch.flip' });
    actor.send({ type: 'switch.flip' });
    actor.send({ type: 'switch.flip' });

    // actor + init snapshot + 3 × (event + snapshot), at least.
    await expect.poll(() => storedCount(db, id), { timeout: 30_000 }).toBeGreaterThanOrEqual(8);
    await expect.poll(() => eventsIn(viewer.received).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(8);
    const live = eventsIn(viewer.received);
    const actorEvent = live.find((e) => e.body.type === '@xstate.actor')!.body as unknown as { definition: string };
    expect(JSON.parse(actorEvent.definition)).toMatchObject({ id: 'toggle', initial: 'off' });
    const last = [...live].reverse().find((e) => e.body.type === '@xstate.snapshot')!.body as unknown as {
      snapshot: { value: string; context: { flips: number } };
    };
    expect(last.snapshot).toMatchObject({ value: 'on', context: { flips: 3 } });
    expect(live.map((e) => e.seq)).toEqual([...live.map((e) => e.seq)].sort((a, b) => a - b));
    expect(eventsIn(outsider.received)).toEqual([]);

    const rows = await t.editor.client.from('inspection_events').select('seq').eq('source_id', id);
    expect(rows.data!.length).toBe(await storedCount(db, id));
    actor.stop();
    inspector.stop();
  });

  it('a wrong key gets 401 and nothing is stored', async () => {
    const { id } = await createSource(t.owner.client, project);
    expect(await refusal('cri_wrong')).toEqual({
      status: 401,
      body: { code: 'invalid_key', message: 'The inspection key is wrong or has been revoked.' },
    });
    expect(await refusal('')).toMatchObject({ status: 401 });
    expect(await storedCount(db, id)).toBe(0);
  });

  it('a revoked key gets 401 and nothing is stored', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    await t.owner.client.rpc('revoke_inspection_source', { p_source: id });
    expect(await refusal(key)).toMatchObject({ status: 401, body: { code: 'invalid_key' } });
    expect(await storedCount(db, id)).toBe(0);
  });

  it('revoking closes the open socket at once with 4001, and later frames are not stored', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    const socket = track(await openRaw(key));
    socket.ws.send(JSON.stringify(protocolEvent(1)));
    await expect.poll(() => storedCount(db, id)).toBe(1);
    const revoked = await t.owner.client.rpc('revoke_inspection_source', { p_source: id });
    expect(revoked.error).toBeNull();
    expect(await socket.closed).toEqual({ code: INSPECT_CLOSE.revoked, reason: 'The inspection key was revoked' });
    expect(await storedCount(db, id)).toBe(1);
  });

  it('a frame over the size limit closes the socket with 4009', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    const socket = track(await openRaw(key));
    const big = { ...protocolEvent(1), event: { type: 'big', blob: 'x'.repeat(INSPECT_LIMITS.maxFrameBytes) } };
    socket.ws.send(JSON.stringify(big));
    expect(await socket.closed).toEqual({
      code: INSPECT_CLOSE.frameTooLarge,
      reason: `Frame over ${INSPECT_LIMITS.maxFrameBytes} bytes`,
    });
    expect(await storedCount(db, id)).toBe(0);
  });

  it('non-protocol JSON is dropped without closing the socket', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    const socket = track(await openRaw(key));
    for (const junk of ['not json', '{"type":"@xstate.event"}', '[1,2]', '{"type":"hello","_version":"1"}'])
      socket.ws.send(junk);
    socket.ws.send(JSON.stringify(protocolEvent(7)));
    await expect.poll(() => storedCount(db, id)).toBe(1);
    const row = await db.query<{ body: { event: { n: number } } }>(
      'select body from public.inspection_events where source_id = $1',
      [id],
    );
    expect(row.rows[0]!.body.event.n).toBe(7);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('over the rate limit: a clear error event, the excess dropped, the backend stays up', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    await db.query('update public.inspection_sources set rate_per_second = 5 where id = $1', [id]);
    const socket = track(await openRaw(key));
    for (let i = 0; i < 40; i++) socket.ws.send(JSON.stringify(protocolEvent(i)));
    await expect.poll(() => socket.received.length).toBeGreaterThan(0);
    expect(socket.received[0]).toMatchObject({ type: '@chartroom.error', code: 'rate_limited' });
    const stored = await storedCount(db, id);
    expect(stored).toBeLessThan(40);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    const health = await fetch(inspectUrl(key, false).replace('/inspect?', '/health?'));
    expect(health.status).toBe(200);
  });
});

describe('inspect over POST', () => {
  const post = (key: string, body: unknown) =>
    fetch(inspectUrl(key, false), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('stores a batch, counting and dropping what is not protocol', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    const viewer = await watch(t.viewer.client);
    const res = await post(key, { session: 'worker-1', events: [protocolEvent(1), { nope: true }, protocolEvent(2)] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ stored: 2, invalid: 1 });
    expect(await storedCount(db, id)).toBe(2);
    await expect.poll(() => eventsIn(viewer.received).length).toBe(2);
    // The same label continues the same session.
    expect((await post(key, { session: 'worker-1', events: [protocolEvent(3)] })).status).toBe(200);
    const sessions = await db.query<{ event_count: string }>(
      'select event_count from public.inspection_sessions where source_id = $1',
      [id],
    );
    expect(sessions.rows.map((r) => Number(r.event_count))).toEqual([3]);
  });

  it('refuses wrong and revoked keys with 401 and stores nothing', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    const wrong = await post('cri_nope', [protocolEvent(1)]);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      code: 'invalid_key',
      message: 'The inspection key is wrong or has been revoked.',
    });
    await t.owner.client.rpc('revoke_inspection_source', { p_source: id });
    expect((await post(key, [protocolEvent(1)])).status).toBe(401);
    expect(await storedCount(db, id)).toBe(0);
  });

  it('refuses bad bodies with 400 and an over-rate batch with 429, storing nothing', async () => {
    const { id, key } = await createSource(t.owner.client, project);
    for (const body of ['{nope', { events: 'x' }, { events: [], session: '' }]) {
      const res = await post(key, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_request' });
    }
    const many = Array.from({ length: INSPECT_LIMITS.maxPostEvents + 1 }, (_, i) => protocolEvent(i));
    expect((await post(key, many)).status).toBe(400);
    await db.query('update public.inspection_sources set rate_per_second = 5 where id = $1', [id]);
    const limited = await post(
      key,
      Array.from({ length: 50 }, (_, i) => protocolEvent(i)),
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(await storedCount(db, id)).toBe(0);
  });

  it('answers other methods with 405', async () => {
    const res = await fetch(inspectUrl('k', false), { method: 'PUT' });
    expect(res.status).toBe(405);
  });
});

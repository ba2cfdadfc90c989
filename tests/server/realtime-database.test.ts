import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { adminDb, superDb } from '../setup/clients.ts';
import {
  closeClients,
  RawSocket,
  realtimeClient,
  sleep,
  subscribed,
  uniqueTopic,
  until,
  userToken,
  VSNS,
  type TestVsn,
} from './realtime-helpers.ts';

/**
 * Broadcast from the database (hosted's realtime.send and realtime.broadcast_changes):
 * rows written to realtime.messages reach the topic's members once committed.
 */
let db: pg.Client;

beforeAll(async () => {
  db = await adminDb();
  await db.query(`
    drop policy if exists rtdb_read on realtime.messages;
    create policy rtdb_read on realtime.messages for select to authenticated
      using (split_part(realtime.topic(), ':', 1) = 'rtdb-room');
    create table if not exists public.rtdb_items (id bigserial primary key, room text not null, body text);
    create or replace function public.rtdb_items_broadcast() returns trigger
    language plpgsql security definer as $$
    begin
      perform realtime.broadcast_changes(
        'rtdb-room:' || coalesce(new.room, old.room), tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
      return null;
    end $$;
    create or replace trigger rtdb_items_broadcast after insert or update or delete on public.rtdb_items
      for each row execute function public.rtdb_items_broadcast();`);
});

afterAll(async () => {
  await db.end();
});

afterEach(closeClients);

type Received = { event: string; [key: string]: unknown };

async function listen(vsn: TestVsn, topic: string, isPrivate: boolean) {
  const client = await realtimeClient(vsn, isPrivate ? userToken() : undefined);
  const channel = client.channel(topic, { config: { private: isPrivate } });
  const got: Received[] = [];
  channel.on('broadcast', { event: '*' }, (m) => got.push(m));
  await subscribed(channel);
  return got;
}

describe.each(VSNS)('database broadcast over vsn %s', (vsn) => {
  it('delivers realtime.send to public and private members by the private flag, with the row id', async () => {
    const topic = uniqueTopic('rtdb-room');
    const pub = await listen(vsn, topic, false);
    const priv = await listen(vsn, topic, true);
    await db.query(`select realtime.send($1::jsonb, 'public-news', $2, false)`, [JSON.stringify({ n: 1 }), topic]);
    await db.query(`select realtime.send($1::jsonb, 'private-news', $2)`, [JSON.stringify({ n: 2 }), topic]);
    await until(() => pub.length === 1 && priv.length === 1, 5000, 'database broadcasts');
    await sleep(100);
    expect(pub).toHaveLength(1);
    expect(priv).toHaveLength(1);
    const [p] = pub as [Received & { payload: { n: number; id: string }; meta: { id: string } }];
    expect(p).toMatchObject({ event: 'public-news', payload: { n: 1 } });
    // The payload carries the row id, and the message metadata names the same row.
    expect(p.meta.id).toBe(p.payload.id);
    const row = await db.query(`select topic, event, private, extension from realtime.messages where id = $1`, [
      p.payload.id,
    ]);
    expect(row.rows).toEqual([{ topic, event: 'public-news', private: false, extension: 'broadcast' }]);
    expect(priv[0]).toMatchObject({ event: 'private-news', payload: { n: 2 } });
  });

  it('delivers realtime.broadcast_changes from a row trigger, and nothing from a rolled back transaction', async () => {
    const room = uniqueTopic('r').replace(':', '-');
    const got = await listen(vsn, `rtdb-room:${room}`, true);
    await db.query('begin');
    await db.query(`insert into public.rtdb_items (room, body) values ($1, 'discarded')`, [room]);
    await db.query('rollback');
    const inserted = await db.query<{ id: string }>(
      `insert into public.rtdb_items (room, body) values ($1, 'hello') returning id`,
      [room],
    );
    await db.query(`update public.rtdb_items set body = 'edited' where id = $1`, [inserted.rows[0]!.id]);
    await until(() => got.length === 2, 5000, 'trigger broadcasts');
    await sleep(100);
    expect(got.map((m) => m.event)).toEqual(['INSERT', 'UPDATE']);
    expect(got[0]!.payload).toMatchObject({
      schema: 'public',
      table: 'rtdb_items',
      operation: 'INSERT',
      record: { room, body: 'hello' },
      old_record: null,
    });
    expect(got[1]!.payload).toMatchObject({
      operation: 'UPDATE',
      record: { body: 'edited' },
      old_record: { body: 'hello' },
    });
  });

  it('delivers a payload too big for NOTIFY by reading the row back', async () => {
    const topic = uniqueTopic('rtdb-big');
    const got = await listen(vsn, topic, false);
    const blob = 'y'.repeat(20_000);
    await db.query(`select realtime.send($1::jsonb, 'big', $2, false)`, [JSON.stringify({ blob }), topic]);
    await until(() => got.length === 1, 5000, 'big broadcast');
    expect((got[0]!.payload as { blob: string }).blob).toBe(blob);
  });
});

describe('database broadcast resilience', () => {
  it('catches up on broadcasts committed while its LISTEN connection was down', async () => {
    const topic = uniqueTopic('rtdb-gap');
    const got = await listen('2.0.0', topic, false);
    // The LISTEN connection is the platform's (supabase_admin): only a superuser ends it.
    const sup = await superDb();
    const killed = await sup
      .query(
        `select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen realtime_broadcast_messages'`,
      )
      .finally(() => sup.end());
    expect(killed.rowCount).toBeGreaterThan(0);
    await db.query(`select realtime.send($1::jsonb, 'during-gap', $2, false)`, [JSON.stringify({ n: 1 }), topic]);
    await until(() => got.length === 1, 10_000, 'the message sent during the gap');
    await db.query(`select realtime.send($1::jsonb, 'after', $2, false)`, [JSON.stringify({ n: 2 }), topic]);
    await until(() => got.length === 2, 5000, 'the message sent after');
    await sleep(200);
    expect(got.map((m) => m.event)).toEqual(['during-gap', 'after']);
  });
});

describe('broadcast replay (private channels)', () => {
  it('resends the latest stored messages on join, oldest first, then continues live', async () => {
    const topic = uniqueTopic('rtdb-room');
    const since = Date.now() - 60_000;
    for (const n of [1, 2, 3])
      await db.query(`select realtime.send($1::jsonb, 'stored', $2)`, [JSON.stringify({ n }), topic]);
    const client = await realtimeClient('2.0.0', userToken());
    const channel = client.channel(topic, { config: { private: true, broadcast: { replay: { since, limit: 2 } } } });
    const got: Received[] = [];
    channel.on('broadcast', { event: '*' }, (m) => got.push(m));
    await subscribed(channel);
    await until(() => got.length === 2, 5000, 'replayed messages');
    expect(got.map((m) => (m.payload as { n: number }).n)).toEqual([2, 3]);
    expect(got[0]!.meta).toMatchObject({ replayed: true, id: (got[0]!.payload as { id: string }).id });
    await db.query(`select realtime.send($1::jsonb, 'live', $2)`, [JSON.stringify({ n: 4 }), topic]);
    await until(() => got.length === 3, 5000, 'live message');
    expect(got[2]).toMatchObject({ event: 'live', payload: { n: 4 } });
    expect((got[2]!.meta as { replayed?: boolean }).replayed).toBeUndefined();
  });

  it('refuses replay on a public channel and with unreadable parameters', async () => {
    const socket = await RawSocket.open('2.0.0');
    try {
      expect(
        await socket.join(`realtime:${uniqueTopic('rtdb-room')}`, '1', {
          config: { broadcast: { replay: { since: 0 } } },
        }),
      ).toEqual({
        status: 'error',
        response: { reason: 'UnableToReplayMessages: Replay is not allowed for public channels' },
      });
      expect(
        await socket.join(`realtime:${uniqueTopic('rtdb-room')}`, '2', {
          config: { private: true, broadcast: { replay: { since: 'yesterday' } } },
          access_token: userToken(),
        }),
      ).toEqual({ status: 'error', response: { reason: 'UnableToReplayMessages: Replay params are not valid' } });
    } finally {
      socket.close();
    }
  });
});

describe('realtime.send and broadcast_changes semantics', () => {
  it('turns a refused insert into a warning instead of an error, as hosted does', async () => {
    const client = await adminDb();
    const warnings: string[] = [];
    client.on('notice', (n) => warnings.push(n.message ?? ''));
    try {
      await client.query('begin');
      await client.query(`select set_config('role', 'anon', true)`);
      await client.query(`select realtime.send('{"a":1}'::jsonb, 'e', 'rtdb-denied:1')`);
      await client.query('commit');
      expect(
        warnings.some((w) => w.startsWith('WarnSendingBroadcastMessage: new row violates row-level security policy')),
      ).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('refuses statement-level use and unknown operations', async () => {
    await expect(
      db.query(
        `select realtime.broadcast_changes('t', 'e', 'INSERT', 'x', 'public', null::record, null::record, 'STATEMENT')`,
      ),
    ).rejects.toThrow(/function can only be triggered for each row/);
    await expect(
      db.query(`select realtime.broadcast_changes('t', 'e', 'TRUNCATE', 'x', 'public', null::record, null::record)`),
    ).rejects.toThrow(/Unexpected operation type: TRUNCATE/);
  });
});

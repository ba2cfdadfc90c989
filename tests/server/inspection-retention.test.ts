import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, type AnyClient } from '../setup/clients.ts';
import { callerClients, createInspectionSource, type Caller, type Result } from './rls-callers.ts';

/**
 * Retention of an inspection source set from the page: owners and editors may
 * change max_events and max_days, and nothing else of the source; viewers, outsiders and
 * anon change nothing (outsiders and anon do not even see the row); the service role
 * keeps its rights; bad values get PostgREST's check-violation answer and change nothing;
 * lowering the bound trims the stored events at once.
 */

type Actor = Caller;

let t: Team;
let db: pg.Client;
let project: string;
const clients = {} as Record<Actor, AnyClient>;

beforeAll(async () => {
  t = await team();
  db = await adminDb();
  project = await projectFor(t);
  Object.assign(clients, callerClients(t));
});

afterAll(async () => {
  await db.end();
});

const createSource = () => createInspectionSource(t.owner.client, project, 'kept', 1000);

async function stored(id: string) {
  const r = await db.query<{ max_events: number; max_days: number; name: string; rate_per_second: number }>(
    'select max_events, max_days, name, rate_per_second from public.inspection_sources where id = $1',
    [id],
  );
  return r.rows[0]!;
}

const setRetention = (actor: Actor, id: string, values: Record<string, unknown>) =>
  clients[actor]
    .from('inspection_sources')
    .update(values)
    .eq('id', id)
    .select('max_events, max_days') as unknown as Promise<Result>;

describe('retention settings', () => {
  it.each(['owner', 'editor', 'service'] as const)('%s sets how many events and days are kept', async (actor) => {
    const { id } = await createSource();
    const r = await setRetention(actor, id, { max_events: 500, max_days: 3 });
    expect(r.error).toBeNull();
    expect(r.data).toEqual([{ max_events: 500, max_days: 3 }]);
    expect(await stored(id)).toMatchObject({ max_events: 500, max_days: 3 });
  });

  it.each(['viewer', 'outsider', 'anon'] as const)('%s changes nothing', async (actor) => {
    const { id } = await createSource();
    const r = await setRetention(actor, id, { max_events: 500, max_days: 3 });
    // RLS hides the row from the update: no row changes, as for a row that is not there.
    expect(r.data ?? []).toEqual([]);
    expect(await stored(id)).toMatchObject({ max_events: 1000, max_days: 7 });
  });

  it('viewers read the retention, outsiders and anon do not see the source', async () => {
    const { id } = await createSource();
    for (const actor of ['viewer', 'outsider', 'anon'] as const) {
      const r = (await clients[actor]
        .from('inspection_sources')
        .select('max_events, max_days')
        .eq('id', id)) as unknown as Result;
      expect(r.data ?? []).toEqual(actor === 'viewer' ? [{ max_events: 1000, max_days: 7 }] : []);
    }
  });

  it.each(['owner', 'editor'] as const)('%s may change only the retention columns', async (actor) => {
    const { id } = await createSource();
    for (const values of [{ name: 'renamed' }, { rate_per_second: 100000 }, { revoked_at: null }, { last_seq: 0 }]) {
      const r = await setRetention(actor, id, values);
      expect(r.error?.code).toBe('42501');
    }
    expect(await stored(id)).toMatchObject({ name: 'kept', rate_per_second: 5000 });
  });

  it('bad values get a check violation and change nothing', async () => {
    const { id } = await createSource();
    for (const values of [{ max_events: 99 }, { max_events: 1_000_001 }, { max_days: 0 }, { max_days: 91 }]) {
      const r = await setRetention('owner', id, values);
      expect(r.error?.code).toBe('23514');
    }
    const wrongType = await setRetention('owner', id, { max_events: 'lots' });
    expect(wrongType.error?.code).toBe('22P02');
    expect(await stored(id)).toMatchObject({ max_events: 1000, max_days: 7 });
  });

  it('lowering the bound trims the stored events at once', async () => {
    const { id, key } = await createSource();
    const opened = (await clients.service.rpc('open_inspection_session', {
      p_key: key,
      p_client: 'ws:retention',
    })) as unknown as Result;
    const session = (opened.data as { session: { id: string } }).session.id;
    const events = Array.from({ length: 300 }, (_, n) => ({
      type: '@xstate.event',
      sessionId: 'x:0',
      rootId: 'x:0',
      _version: '0.7.2',
      event: { type: 'tick', n },
    }));
    const r = (await clients.service.rpc('ingest_inspection_events', {
      p_key: key,
      p_session: session,
      p_events: events,
    })) as unknown as Result;
    expect(r.error).toBeNull();
    const set = await setRetention('editor', id, { max_events: 100 });
    expect(set.error).toBeNull();
    const kept = await db.query<{ n: string; first: string }>(
      'select count(*) as n, min(seq) as first from public.inspection_events where source_id = $1',
      [id],
    );
    expect(kept.rows[0]).toEqual({ n: '100', first: '201' });
  });
});

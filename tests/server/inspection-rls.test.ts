import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, type AnyClient } from '../setup/clients.ts';
import { call, callerClients, createInspectionSource, type Result } from './rls-callers.ts';

/**
 * Inspection sources, sessions and events under row level security: members
 * read, only owners create and revoke a source (the key is returned once and stored as
 * its sha-256), outsiders learn nothing, not even that a source exists, and only the
 * service role ingests, within the source's retention.
 */

type Actor = 'anon' | 'outsider' | 'viewer' | 'editor' | 'owner';
const ACTORS: Actor[] = ['anon', 'outsider', 'viewer', 'editor', 'owner'];
const members = new Set<Actor>(['viewer', 'editor', 'owner']);

let t: Team;
let db: pg.Client;
let project: string;
const clients = {} as Record<Actor, AnyClient>;
let service: AnyClient;

beforeAll(async () => {
  t = await team();
  db = await adminDb();
  project = await projectFor(t);
  const callers = callerClients(t);
  service = callers.service;
  Object.assign(clients, callers);
});

afterAll(async () => {
  await db.end();
});

const createSource = (maxEvents = 100) => createInspectionSource(t.owner.client, project, 'web app', maxEvents);

const actorEvent = (sessionId: string, n = 0) => ({
  type: '@xstate.actor',
  sessionId,
  rootId: 'x:0',
  _version: '0.7.2',
  n,
});

async function openSession(key: string, client = 'ws:test'): Promise<string> {
  const r = await call(service, 'open_inspection_session', { p_key: key, p_client: client });
  if (r.error) throw new Error(r.error.message);
  return (r.data as { session: { id: string } }).session.id;
}

describe('sources', () => {
  it('an owner creates a source: the key is returned once and only its sha-256 is stored', async () => {
    const { id, key } = await createSource();
    expect(key).toMatch(/^cri_[0-9a-f]{48}$/);
    const stored = await db.query<{ key_hash: Buffer }>(
      'select key_hash from public.inspection_source_keys where source_id = $1',
      [id],
    );
    expect(stored.rows[0]!.key_hash.toString('hex')).toBe(
      (await import('node:crypto')).createHash('sha256').update(key).digest('hex'),
    );
  });

  it.each(ACTORS.filter((a) => a !== 'owner'))(
    '%s cannot create a source (same answer as no project)',
    async (actor) => {
      const r = await call(clients[actor], 'create_inspection_source', { p_project: project, p_name: 'x' });
      expect(r.error).not.toBeNull();
      const missing = await call(clients.owner, 'create_inspection_source', {
        p_project: '00000000-0000-4000-8000-000000000000',
        p_name: 'x',
      });
      if (actor !== 'anon') expect(r.error!.message).toBe(missing.error!.message);
      const n = await db.query('select 1 from public.inspection_sources where project_id = $1 and name = $2', [
        project,
        'x',
      ]);
      expect(n.rowCount).toBe(0);
    },
  );

  it.each(ACTORS)('%s reads sources only as a member, and never a key hash', async (actor) => {
    const { id } = await createSource();
    const r = (await clients[actor].from('inspection_sources').select('id, name').eq('id', id)) as Result;
    if (members.has(actor)) expect(r.data).toEqual([{ id, name: 'web app' }]);
    else expect(r.data ?? []).toEqual([]);
    const keys = (await clients[actor].from('inspection_source_keys').select('*')) as Result;
    expect(keys.error).not.toBeNull();
  });

  it.each(ACTORS.filter((a) => a !== 'owner'))('%s cannot revoke a source, and learns nothing', async (actor) => {
    const { id, key } = await createSource();
    const r = await call(clients[actor], 'revoke_inspection_source', { p_source: id });
    expect(r.error).not.toBeNull();
    const unknown = await call(clients.owner, 'revoke_inspection_source', {
      p_source: '00000000-0000-4000-8000-000000000000',
    });
    if (actor !== 'anon') expect(r.error!.message).toBe(unknown.error!.message);
    const live = await call(service, 'inspection_source_for_key', { p_key: key });
    expect(live.data).toHaveLength(1);
  });

  it('an owner revokes: the key stops opening the source and nothing more is stored', async () => {
    const { id, key } = await createSource();
    const session = await openSession(key);
    const revoked = await call(clients.owner, 'revoke_inspection_source', { p_source: id });
    expect(revoked.error).toBeNull();
    expect(await call(service, 'inspection_source_for_key', { p_key: key })).toMatchObject({ data: [] });
    const r = await call(service, 'ingest_inspection_events', {
      p_key: key,
      p_session: session,
      p_events: [actorEvent('x:1')],
    });
    expect(r.data).toBeNull();
    const n = await db.query('select 1 from public.inspection_events where source_id = $1', [id]);
    expect(n.rowCount).toBe(0);
  });

  it('clients cannot write sources, sessions or events directly', async () => {
    for (const table of ['inspection_sources', 'inspection_sessions', 'inspection_events']) {
      const r = (await clients.owner.from(table).insert({ project_id: project })) as Result;
      expect(r.error).not.toBeNull();
    }
  });
});

describe('ingest', () => {
  it.each(ACTORS)('%s cannot call the ingest functions', async (actor) => {
    const { key } = await createSource();
    for (const fn of ['inspection_source_for_key', 'open_inspection_session']) {
      const r = await call(clients[actor], fn, {
        p_key: key,
        ...(fn === 'open_inspection_session' ? { p_client: 'c' } : {}),
      });
      expect(r.error).not.toBeNull();
    }
  });

  it('stores events in order, members read them, outsiders do not, and retention keeps the last N', async () => {
    const { id, key } = await createSource(100);
    const session = await openSession(key);
    for (let batch = 0; batch < 3; batch++) {
      const events = Array.from({ length: 50 }, (_, i) => actorEvent(`x:${batch}`, batch * 50 + i));
      const r = await call(service, 'ingest_inspection_events', { p_key: key, p_session: session, p_events: events });
      expect(r.error).toBeNull();
      expect(r.data).toEqual({ stored: 50, first_seq: batch * 50 + 1, last_seq: batch * 50 + 50 });
    }
    const kept = (await clients.viewer
      .from('inspection_events')
      .select('seq, body')
      .eq('source_id', id)
      .order('seq')) as Result;
    const rows = kept.data as { seq: number; body: { n: number } }[];
    expect(rows).toHaveLength(100);
    expect(rows[0]).toMatchObject({ seq: 51, body: { n: 50 } });
    expect(rows[99]).toMatchObject({ seq: 150, body: { n: 149 } });
    const outsider = (await clients.outsider.from('inspection_events').select('seq').eq('source_id', id)) as Result;
    expect(outsider.data).toEqual([]);
    const sessions = (await clients.editor
      .from('inspection_sessions')
      .select('event_count')
      .eq('id', session)) as Result;
    expect(sessions.data).toEqual([{ event_count: 150 }]);
  });

  it('a batch with an event the table refuses stores nothing', async () => {
    const { id, key } = await createSource();
    const session = await openSession(key);
    const r = await call(service, 'ingest_inspection_events', {
      p_key: key,
      p_session: session,
      p_events: [actorEvent('x:1'), { type: 'not-a-protocol-event', sessionId: 'x:2' }],
    });
    expect(r.error).not.toBeNull();
    const n = await db.query('select 1 from public.inspection_events where source_id = $1', [id]);
    expect(n.rowCount).toBe(0);
    const last = await db.query<{ last_seq: string }>('select last_seq from public.inspection_sources where id = $1', [
      id,
    ]);
    expect(Number(last.rows[0]!.last_seq)).toBe(0);
  });
});

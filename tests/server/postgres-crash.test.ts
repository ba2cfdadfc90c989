import { createClient } from '@supabase/supabase-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { Backend } from '../../server/backend.ts';
import { crashBackend } from './crash-helpers.ts';
import { until } from './realtime-helpers.ts';

/**
 * PostgreSQL killed under the backend (SIGKILL of the postmaster, as a crash or the OOM
 * killer would): Node must not die of pg's 57P01 'error' events, health must say 503
 * while the database is down, the supervisor must bring PostgreSQL back, and then the
 * pools, the replication reader and realtime subscribers carry on. Every write that was
 * acknowledged before the kill is still there after it.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let crash: Awaited<ReturnType<typeof crashBackend>>;
let backend: Backend;
let logs: string[];

beforeAll(async () => {
  crash = await crashBackend('crash');
  ({ backend, logs } = crash);
  const admin = new pg.Client({ connectionString: backend.databaseUrl });
  await admin.connect();
  await admin.query(`create table public.crash_notes (id int primary key, body text not null);
    grant select, insert on public.crash_notes to service_role;
    alter publication supabase_realtime add table public.crash_notes;
    notify pgrst, 'reload schema';`);
  await admin.end();
});

afterAll(async () => {
  await crash?.cleanup();
});

const health = () => crash.health();
const healthBecomes = (status: number) => crash.healthBecomes(status);

describe('PostgreSQL crash', () => {
  it('survives a kill under load: 503 while down, restarted, nothing acknowledged lost, realtime resumes', async () => {
    const client = createClient(backend.url, backend.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    const received: number[] = [];
    const channel = client
      .channel('crash-feed')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'crash_notes' },
        (p: { new: { id: number } }) => received.push(p.new.id),
      );
    await new Promise<void>((resolve) =>
      channel.subscribe((status) => ((status as string) === 'SUBSCRIBED' ? resolve() : undefined)),
    );
    while ((await client.from('crash_notes').select('id').limit(1)).error) await new Promise((r) => setTimeout(r, 50));

    // Load: writers insert back to back and remember what was acknowledged.
    const acknowledged: number[] = [];
    let next = 1;
    let running = true;
    const writer = async (): Promise<void> => {
      while (running) {
        const id = next++;
        const { error } = await client.from('crash_notes').insert({ id, body: `note ${id}` });
        if (!error) acknowledged.push(id);
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    await until(() => acknowledged.length >= 30, 30_000, 'writes before the kill');

    await crash.killPostgres();
    await healthBecomes(503);
    await healthBecomes(200);
    await until(() => acknowledged.length >= 60, 60_000, 'writes after the restart');
    running = false;
    await Promise.all(writers);

    // Every acknowledged row is there.
    const admin = new pg.Client({ connectionString: backend.databaseUrl });
    await admin.connect();
    const stored = new Set(
      (await admin.query<{ id: number }>('select id from public.crash_notes')).rows.map((r) => r.id),
    );
    await admin.end();
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // The replication reader came back: a row written now reaches the subscriber.
    const { error } = await client.from('crash_notes').insert({ id: 1_000_000, body: 'after' });
    expect(error).toBeNull();
    await until(() => received.includes(1_000_000), 30_000, 'the change after the restart');
    expect(logs.some((l) => l.includes('PostgreSQL exited unexpectedly'))).toBe(true);
    expect(logs.some((l) => l.includes('PostgreSQL is running again'))).toBe(true);
    await client.removeAllChannels();
  });

  it('answers 503 while the database is down when idle, and 200 once it is back', async () => {
    expect(await health()).toBe(200);
    await crash.killPostgres();
    await healthBecomes(503);
    await healthBecomes(200);
    const up = await fetch(`${backend.url}/rest/v1/crash_notes?select=id&limit=1`, {
      headers: { apikey: backend.serviceRoleKey },
    });
    expect(up.status).toBe(200);
  });
});

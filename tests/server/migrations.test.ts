import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startBackend } from '../../server/backend.ts';
import { freePort } from '../setup/ports.ts';

const root = path.resolve('tests/.tmp');
// Each test runs initdb and starts PostgreSQL twice; on a busy two-core machine that can
// take most of the default 30 s, so the bound is wider (a hung start-up still fails).
vi.setConfig({ testTimeout: 120_000 });
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A scratch supabase/ directory with the given migrations and seed. */
async function supabaseDir(files: Record<string, string>): Promise<string> {
  await fs.mkdir(root, { recursive: true });
  const dir = await fs.mkdtemp(path.join(root, 'supa-'));
  await fs.mkdir(path.join(dir, 'migrations'));
  for (const [name, sql] of Object.entries(files)) await fs.writeFile(path.join(dir, name), sql);
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

async function dataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(root, 'data-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const quiet = { port: 0, logRequests: false, log: () => undefined };

describe('migration runner', () => {
  it('applies migrations in name order, seeds a fresh data dir once, and on restart keeps data and applies only new files', async () => {
    const supa = await supabaseDir({
      'migrations/20240101000000_items.sql': 'create table public.items (id int primary key, label text);',
      'migrations/20240102000000_more.sql': `insert into public.items values (1, 'from migration');`,
      'seed.sql': `insert into public.items values (2, 'from seed');`,
    });
    const data = await dataDir();
    const dbPort = await freePort();
    const first = await startBackend({ ...quiet, dbPort, dataDir: data, supabaseDir: supa });
    // Stopped even when an expectation fails, so no PostgreSQL outlives the run.
    try {
      expect(first.fresh).toBe(true);
      expect(first.applied).toEqual(['20240101000000_items.sql', '20240102000000_more.sql']);
      const versions = await query<{ version: string; name: string }>(
        first.databaseUrl,
        'select version, name from supabase_migrations.schema_migrations order by version',
      );
      expect(versions).toEqual([
        { version: '20240101000000', name: 'items' },
        { version: '20240102000000', name: 'more' },
      ]);
      await query(first.databaseUrl, `insert into public.items values (3, 'written at runtime')`);
    } finally {
      await first.stop();
    }

    await fs.writeFile(
      path.join(supa, 'migrations/20240103000000_third.sql'),
      'alter table public.items add column n int default 7;',
    );
    const second = await startBackend({ ...quiet, dbPort, dataDir: data, supabaseDir: supa });
    try {
      expect(second.fresh).toBe(false);
      expect(second.applied).toEqual(['20240103000000_third.sql']);
      const rows = await query<{ id: number; label: string; n: number }>(
        second.databaseUrl,
        'select id, label, n from public.items order by id',
      );
      // The seed ran once (row 2 not doubled), the runtime row survived, the new column arrived.
      expect(rows).toEqual([
        { id: 1, label: 'from migration', n: 7 },
        { id: 2, label: 'from seed', n: 7 },
        { id: 3, label: 'written at runtime', n: 7 },
      ]);
    } finally {
      await second.stop();
    }
  });

  it('stops start-up on a failing migration with its file name and PostgreSQL message, leaving nothing half-applied', async () => {
    const supa = await supabaseDir({
      'migrations/20240101000000_ok.sql': 'create table public.kept (id int primary key);',
      'migrations/20240102000000_broken.sql':
        'create table public.half (id int primary key);\nselect * from no_such_table;',
    });
    const data = await dataDir();
    const dbPort = await freePort();
    await expect(startBackend({ ...quiet, dbPort, dataDir: data, supabaseDir: supa })).rejects.toThrow(
      /20240102000000_broken\.sql.*relation "no_such_table" does not exist/,
    );
    // Fix the file and start again: the good migration is recorded once, the broken one
    // left no table behind and now applies cleanly.
    await fs.writeFile(
      path.join(supa, 'migrations/20240102000000_broken.sql'),
      'create table public.half (id int primary key);',
    );
    const backend = await startBackend({ ...quiet, dbPort, dataDir: data, supabaseDir: supa });
    try {
      expect(backend.applied).toEqual(['20240102000000_broken.sql']);
      const tables = await query<{ tablename: string }>(
        backend.databaseUrl,
        `select tablename from pg_tables where schemaname = 'public' order by 1`,
      );
      expect(tables.map((t) => t.tablename)).toEqual(['half', 'kept']);
    } finally {
      await backend.stop();
    }
  });
});

describe('platform bootstrap on an existing database', () => {
  it('runs again (a second gateway attaching) without changing what a migration granted', async () => {
    const supa = await supabaseDir({
      'migrations/20240101000000_log.sql':
        'create table public.append_only (id int primary key);\ngrant select, insert on public.append_only to authenticated;',
    });
    const data = await dataDir();
    const first = await startBackend({ ...quiet, dbPort: await freePort(), dataDir: data, supabaseDir: supa });
    try {
      const second = await startBackend({
        ...quiet,
        externalDatabaseUrl: first.databaseUrl,
        dataDir: data,
        supabaseDir: supa,
      });
      await second.stop();
      const grants = await query<{ privilege_type: string }>(
        first.databaseUrl,
        `select privilege_type from information_schema.role_table_grants
          where table_schema = 'public' and table_name = 'append_only' and grantee = 'authenticated' order by 1`,
      );
      expect(grants.map((g) => g.privilege_type)).toEqual(['INSERT', 'SELECT']);
    } finally {
      await first.stop();
    }
  });
});

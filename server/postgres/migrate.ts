import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const SERVER_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BOOTSTRAP = path.join(SERVER_DIR, 'postgres', 'bootstrap.sql');
/** Owners and grants of everything the platform made: runs after every platform.sql. */
const PRIVILEGES = path.join(SERVER_DIR, 'postgres', 'privileges.sql');
/** Services add their own platform SQL beside their code: server/<service>/platform.sql. */
const SERVICES_WITH_SQL = ['auth', 'rest', 'storage', 'realtime', 'functions'];

function platformSql(): string[] {
  const files = [BOOTSTRAP, ...SERVICES_WITH_SQL.map((s) => path.join(SERVER_DIR, s, 'platform.sql')), PRIVILEGES];
  return files.filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8'));
}

export class MigrationError extends Error {
  constructor(
    readonly file: string,
    readonly pgMessage: string,
  ) {
    super(`migration ${file} failed: ${pgMessage}`);
  }
}

/**
 * Applies the platform bootstrap (idempotent) in one transaction, as the superuser supabase_admin.
 * Its DDL can deadlock with live requests when a second gateway starts on a running database;
 * PostgreSQL then rolls it back whole, so it simply runs again.
 */
export async function bootstrap(client: pg.Client, attempts = 3): Promise<void> {
  try {
    await bootstrapOnce(client);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== '40P01' || attempts <= 1) throw error;
    await bootstrap(client, attempts - 1);
  }
}

async function bootstrapOnce(client: pg.Client): Promise<void> {
  await client.query('begin');
  try {
    // Serialise concurrent starts on the same cluster.
    await client.query('select pg_advisory_xact_lock(54321)');
    for (const sql of platformSql()) await client.query(sql);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/** The version of a migration file: the digits before the first underscore, as the CLI reads it. */
export function migrationVersion(file: string): { version: string; name: string } {
  const match = /^(\d+)_(.*)\.sql$/.exec(file);
  if (match) return { version: match[1]!, name: match[2]! };
  return { version: file.replace(/\.sql$/, ''), name: file.replace(/\.sql$/, '') };
}

/**
 * Applies every `migrations/*.sql` not yet recorded, as `supabase db push` does: as
 * `postgres` on a connection opened after the bootstrap (so postgres's own search_path,
 * extensions included, is in force), in name order, each in its own
 * transaction together with its row in supabase_migrations.schema_migrations, so a
 * failure leaves nothing half-applied. Returns the files applied.
 */
export async function migrate(client: pg.Client, migrationsDir: string): Promise<string[]> {
  if (!existsSync(migrationsDir)) return [];
  const files = (await fs.readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
  const done = new Set(
    (await client.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).rows.map(
      (r) => r.version,
    ),
  );
  const applied: string[] = [];
  for (const file of files) {
    const { version, name } = migrationVersion(file);
    if (done.has(version)) continue;
    const sql = await fs.readFile(path.join(migrationsDir, file), 'utf8');
    await client.query('begin');
    try {
      await client.query(sql);
      await client.query(
        'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
        [version, name, [sql]],
      );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw new MigrationError(file, error instanceof Error ? error.message : String(error));
    }
    applied.push(file);
  }
  if (applied.length > 0) await client.query(`notify pgrst, 'reload schema'`);
  return applied;
}

/** Runs seed.sql in one transaction (only on a fresh data directory), as `postgres` on its own connection. */
export async function seed(client: pg.Client, seedFile: string): Promise<boolean> {
  if (!existsSync(seedFile)) return false;
  const sql = await fs.readFile(seedFile, 'utf8');
  await client.query('begin');
  try {
    await client.query(sql);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw new MigrationError(path.basename(seedFile), error instanceof Error ? error.message : String(error));
  }
  return true;
}

import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { startBackend } from '../../server/backend.ts';
import { generate } from '../../server/gen-types.ts';
import { freePort } from '../setup/ports.ts';

// Runs initdb and starts a PostgreSQL of its own: a wider bound than the default 30 s for
// a busy machine (a hung start-up still fails).
vi.setConfig({ testTimeout: 120_000 });

describe('npm run gen:types', () => {
  it('the committed database types are current and in the shape of `supabase gen types typescript`', async () => {
    // Its own scratch database: other test files add tables to the shared one.
    await fs.mkdir(path.resolve('tests/.tmp'), { recursive: true });
    const dataDir = await fs.mkdtemp(path.resolve('tests/.tmp/types-'));
    const backend = await startBackend({
      port: 0,
      dbPort: await freePort(),
      dataDir,
      logRequests: false,
      log: () => undefined,
    });
    const db = new pg.Client({ connectionString: backend.databaseUrl });
    try {
      await db.connect();
      const fresh = await generate(db);
      const committed = await fs.readFile('src/adapters/supabase/database.types.ts', 'utf8');
      // Run `npm run gen:types` after changing supabase/migrations.
      expect(committed).toBe(fresh);
      // The CLI's shape: a type alias with graphql_public and public, empty maps as
      // `{ [_ in never]: never }`, helpers taking `{ schema }`, and the Constants export.
      expect(fresh).toMatch(/^export type Database = \{$/m);
      expect(fresh).toMatch(/^ {2}graphql_public: \{\n {4}Tables: \{\n {6}\[_ in never\]: never\n {4}\}/m);
      expect(fresh).toMatch(/^ {2}public: \{\n {4}Tables: \{\n {6}\w+: \{/m);
      expect(fresh).toMatch(/join_shared_project: \{\n\s+Args: \{\n\s+p_token: string\n\s+\}\n\s+Returns: string\n/);
      for (const helper of ['Tables', 'TablesInsert', 'TablesUpdate', 'Enums', 'CompositeTypes']) {
        expect(fresh).toMatch(
          new RegExp(
            `^export type ${helper}<\\n\\s+DefaultSchema\\w+NameOrOptions extends[^>]*\\{ schema: keyof DatabaseWithoutInternals \\}`,
            'm',
          ),
        );
      }
      expect(fresh).toMatch(
        /^export const Constants = \{\n {2}graphql_public: \{\n {4}Enums: \{\},\n {2}\},\n {2}public: \{/m,
      );
    } finally {
      await db.end();
      await backend.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generate } from '../../server/gen-types.ts';
import { adminDb } from '../setup/clients.ts';

describe('npm run gen:types', () => {
  it('the committed database types match the schema the migrations build', async () => {
    const db = await adminDb();
    try {
      const fresh = await generate(db);
      const committed = await fs.readFile('src/adapters/supabase/database.types.ts', 'utf8');
      // Run `npm run gen:types` after changing supabase/migrations.
      expect(committed).toBe(fresh);
      expect(fresh).toContain('project_members: {');
      expect(fresh).toMatch(/join_shared_project: \{\n\s+Args: \{ p_token: string \};\n\s+Returns: string;/);
    } finally {
      await db.end();
    }
  });
});

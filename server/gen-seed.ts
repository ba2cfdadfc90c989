/**
 * `npm run gen:seed`: writes the demo project (one machine per bundled example) into
 * supabase/seed.sql, between its markers, so the examples and the seed never drift
 * (tests/server/seed.test.ts fails when they do). Written to a temporary file, then renamed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { demoProjectSql, withDemoBlock } from './seed/demo-project.ts';

const file = path.resolve('supabase/seed.sql');
const next = withDemoBlock(await fs.readFile(file, 'utf8'), demoProjectSql());
await fs.writeFile(`${file}.tmp`, next);
await fs.rename(`${file}.tmp`, file);
console.log(`wrote the demo project into ${path.relative(process.cwd(), file)}`);

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchContext, BenchSection } from './lib.ts';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sections');
const only = process.argv.slice(2);

const ctx: BenchContext = {
  section(title) {
    console.log(`\n== ${title}`);
  },
  report(label, value, aim) {
    console.log(`  ${label.padEnd(58)} ${value.padStart(14)}${aim ? `   (aim ${aim})` : ''}`);
  },
};

const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort()
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

console.log(`Chartroom bench: node ${process.version}, ${new Date().toISOString()}`);
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { run: BenchSection };
  await mod.run(ctx);
}
process.exit(0);

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** README's architecture names every machine of machines/, in the folder it lives in. */

const README = fs.readFileSync('README.md', 'utf8');

/** The lines of README's block for one folder of machines/: `  room/ ...` and its indented continuation. */
function folderBlock(folder: string): string {
  const section = README.slice(README.indexOf('## Architecture'));
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  ${folder}/ `));
  if (start < 0) return '';
  const block = [lines[start]];
  for (const line of lines.slice(start + 1)) {
    if (!/^ {21}\S/.test(line)) break;
    block.push(line);
  }
  return block.join(' ');
}

const folders = fs
  .readdirSync('machines', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe("README's architecture", () => {
  it('has a line for every folder of machines/', () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(folders.filter((folder) => folderBlock(folder) === '')).toEqual([]);
  });

  it.each(folders)('names every machine in machines/%s/', (folder) => {
    const block = folderBlock(folder);
    const machines = fs
      .readdirSync(path.join('machines', folder))
      .filter((file) => file.endsWith('.machine.ts'))
      .map((file) => file.replace(/\.machine\.ts$/, ''));
    expect(machines.length).toBeGreaterThan(0);
    const named = (name: string) => new RegExp(`(^|[\\s,:(])${name}([\\s,).]|$)`).test(block);
    expect(machines.filter((name) => !named(name))).toEqual([]);
  });
});

import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Running exported test files as a user would: each in a folder of its own
 * outside the repository, whose `node_modules` is this repository's (the file imports
 * vitest and xstate, as it would in the user's project), with Vitest's own CLI.
 */

const repo = resolve(import.meta.dirname, '../..');

/** A fresh folder holding `files`; `cleanUp` removes every folder made so far. */
export function exportFolders() {
  const folders: string[] = [];
  return {
    folderWith: async (files: Record<string, string>): Promise<string> => {
      const dir = await mkdtemp(join(tmpdir(), 'chartroom-export-'));
      folders.push(dir);
      await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
      for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
      return dir;
    },
    cleanUp: async (): Promise<void> => {
      for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `vitest run` in `dir` and waits for it to exit. */
export function vitest(dir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir], {
      cwd: dir,
      env: { ...process.env, CI: '1', NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', fail);
    child.on('exit', (code) => done({ code, output }));
  });
}

/** Vitest's summary line as counts: "Tests  1 failed | 2 passed (3)". */
export function testCounts(output: string): { passed: number; failed: number; total: number } | null {
  const line = /^\s*Tests\s+(.*)\((\d+)\)\s*$/m.exec(output);
  if (!line) return null;
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line[1] ?? '')?.[1] ?? 0);
  return { passed: count('passed'), failed: count('failed'), total: Number(line[2]) };
}

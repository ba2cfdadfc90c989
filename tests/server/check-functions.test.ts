import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionEntrypoints } from '../../server/check-functions.ts';

/**
 * `npm run check:functions`: the real Deno (npm package `deno`) type-checks every edge
 * function, offline; a function with a type error fails the check and names the error.
 */

const root = path.resolve(import.meta.dirname, '../..');
const scratch: string[] = [];

afterAll(async () => {
  for (const dir of scratch) await fs.rm(dir, { recursive: true, force: true });
});

function run(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/check-functions.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 280_000,
  });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe('check:functions', () => {
  it('finds each function by its index.ts, as the CLI names them', async () => {
    const entries = await functionEntrypoints(path.join(root, 'supabase', 'functions'));
    expect(entries.map((e) => path.basename(path.dirname(e)))).toEqual(
      expect.arrayContaining(['accept-invite', 'checkpoint-machine', 'health', 'inspect']),
    );
  });

  it('every function in supabase/functions type-checks under real Deno', () => {
    const { code, out } = run();
    expect(out).toContain('supabase/functions/inspect/index.ts');
    expect(out).toMatch(/check:functions: \d+ functions type-check/);
    expect(code).toBe(0);
  }, 300_000);

  it('a function with a type error fails the check, naming the error', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'check-functions-'));
    scratch.push(dir);
    await fs.mkdir(path.join(dir, 'broken'));
    await fs.writeFile(path.join(dir, 'broken', 'index.ts'), 'Deno.serve(() => new Response(Deno.env.get(42)));\n');
    const { code, out } = run('--dir', dir);
    expect(code).not.toBe(0);
    expect(out).toContain('TS2345');
    expect(out).toContain('check:functions: failed');
  }, 300_000);
});

/**
 * `npm run check:functions`: type-checks every edge function in supabase/functions with
 * the real Deno (the `deno` npm package, installed by `npm ci`), as hosted Supabase's
 * runtime would compile it. The embedded backend runs functions on Node, where a
 * Deno-only mistake (a wrong `Deno.*` call, an npm: subpath that does not exist) could
 * otherwise pass unnoticed.
 *
 * Offline: `npm:` imports resolve from this repository's node_modules, and the one `jsr:`
 * import the functions use (`@supabase/functions-js/edge-runtime.d.ts`, types only) maps
 * to the same file inside the npm package @supabase/functions-js
 * (server/functions/deno-check.json); any other remote import fails the check.
 *
 *   npm run check:functions                  every function under supabase/functions
 *   npm run check:functions -- --dir <dir>   every function under another directory
 *
 * Exit code: Deno's (0 when every function type-checks).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The entrypoints: `<dir>/<name>/index.ts` for each function name the CLI accepts. */
export async function functionEntrypoints(dir: string): Promise<string[]> {
  const names = (await fs.readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(e.name))
    .map((e) => e.name)
    .sort();
  const entries: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name, 'index.ts');
    if (
      await fs.stat(file).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      entries.push(file);
  }
  return entries;
}

export async function checkFunctions(dir: string): Promise<number> {
  const entries = await functionEntrypoints(dir);
  if (entries.length === 0) {
    console.error(`check:functions: no functions (<name>/index.ts) under ${dir}`);
    return 1;
  }
  const deno = path.join(root, 'node_modules', 'deno', 'bin.cjs');
  const args = [deno, 'check', '--config', path.join(root, 'server', 'functions', 'deno-check.json'), '--no-remote'];
  console.log(`check:functions: deno check ${entries.map((e) => path.relative(root, e)).join(' ')}`);
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [...args, ...entries], {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        // Deno's own cache, kept with the other tool caches so repeat runs are quick.
        DENO_DIR: process.env.DENO_DIR ?? path.join(root, 'node_modules', '.cache', 'deno'),
        DENO_NO_UPDATE_CHECK: '1',
        NO_COLOR: '1',
      },
    });
    child.on('error', reject);
    child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  });
  console.log(code === 0 ? `check:functions: ${entries.length} functions type-check` : 'check:functions: failed');
  return code;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--dir');
  const dir =
    at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]!) : path.join(root, 'supabase', 'functions');
  process.exitCode = await checkFunctions(dir);
}

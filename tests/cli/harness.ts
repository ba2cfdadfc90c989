import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/main.ts';
import { backendInfo } from '../setup/clients.ts';

/** The command run in-process in a temporary folder that stands for the user's repository. */

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export async function runIn(cwd: string, argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A new repository folder, with the command pointed at the test backend; `done` puts both back. */
export async function tempRepo(prefix: string): Promise<{ dir: string; done: () => Promise<void> }> {
  const saved = { url: process.env.CHARTROOM_API_URL, key: process.env.CHARTROOM_ANON_KEY };
  const { url, anonKey } = backendInfo();
  process.env.CHARTROOM_API_URL = url;
  process.env.CHARTROOM_ANON_KEY = anonKey;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return {
    dir,
    done: async () => {
      process.env.CHARTROOM_API_URL = saved.url;
      process.env.CHARTROOM_ANON_KEY = saved.key;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A long-running command (watch) started in-process: its lines so far, and a stop that acts as Ctrl-C. */
export function startIn(cwd: string, argv: string[]): { out: string[]; err: string[]; stop: () => Promise<CliResult> } {
  const out: string[] = [];
  const err: string[] = [];
  const abort = new AbortController();
  const code = run(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd, signal: abort.signal });
  return {
    out,
    err,
    stop: async () => {
      abort.abort();
      return { code: await code, out: out.join('\n'), err: err.join('\n') };
    },
  };
}

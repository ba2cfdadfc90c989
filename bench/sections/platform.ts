import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startBackend } from '../../server/backend.ts';
import { freePort } from '../../tests/setup/ports.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

const quiet = { logRequests: false, log: () => undefined };

async function scratch(): Promise<string> {
  const root = path.resolve('bench/.tmp');
  await fs.mkdir(root, { recursive: true });
  return fs.mkdtemp(path.join(root, 'platform-'));
}

/** Time from spawning `npm run backend`'s command to GET /auth/v1/health answering 200. */
async function processStart(dataDir: string, port: number, dbPort: number): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/main.ts',
      '--port',
      String(port),
      '--db-port',
      String(dbPort),
      '--data-dir',
      dataDir,
      '--quiet',
    ],
    {
      stdio: 'ignore',
    },
  );
  try {
    while (since(start) < 120_000) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/auth/v1/health`);
        if (res.status === 200) return since(start);
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 10));
      if (child.exitCode !== null) throw new Error('backend exited during start');
    }
    throw new Error('backend did not answer /auth/v1/health with 200 within 120 s');
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('Backend start-up (PostgreSQL + bootstrap + migrations + services)');
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dataDir = await scratch();
    const dbPort = await freePort();
    let t = process.hrtime.bigint();
    const b = await startBackend({ ...quiet, port: 0, dbPort, dataDir });
    cold.push(since(t));
    await b.stop();
    for (let j = 0; j < 2; j++) {
      t = process.hrtime.bigint();
      const again = await startBackend({ ...quiet, port: 0, dbPort, dataDir });
      warm.push(since(t));
      await again.stop();
    }
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  const c = summarize(cold);
  const w = summarize(warm);
  ctx.report(`cold start in-process, fresh data dir (median of ${c.n})`, ms(c.p50), '< 4000 ms');
  ctx.report(`warm start in-process (median of ${w.n})`, ms(w.p50), '< 1500 ms');

  const proc: number[] = [];
  const procCold: number[] = [];
  for (let i = 0; i < 2; i++) {
    const dataDir = await scratch();
    const port = await freePort();
    const dbPort = await freePort();
    procCold.push(await processStart(dataDir, port, dbPort));
    proc.push(await processStart(dataDir, port, dbPort));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  ctx.report(
    `cold start as a process, spawn to /health 200 (median of ${procCold.length})`,
    ms(summarize(procCold).p50),
    '< 4000 ms',
  );
  ctx.report(
    `warm start as a process, spawn to /health 200 (median of ${proc.length})`,
    ms(summarize(proc).p50),
    '< 1500 ms',
  );
}

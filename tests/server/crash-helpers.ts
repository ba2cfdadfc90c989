import fs from 'node:fs/promises';
import path from 'node:path';
import { startBackend, type Backend } from '../../server/backend.ts';
import { freePort } from '../setup/ports.ts';

/**
 * A backend of its own for a test that kills its PostgreSQL (the shared one must not
 * die): its data directory under tests/.tmp, its log lines kept, and the kill.
 */
export async function crashBackend(tag: string): Promise<{
  backend: Backend;
  logs: string[];
  /** SIGKILL of the postmaster, as a crash or the OOM killer would. */
  killPostgres(): Promise<void>;
  /** Polls health's status until it is `status`; bounded by the test timeout, not by timing. */
  healthBecomes(status: number): Promise<void>;
  health(): Promise<number>;
  cleanup(): Promise<void>;
}> {
  await fs.mkdir(path.resolve('tests/.tmp'), { recursive: true });
  const dataDir = await fs.mkdtemp(path.resolve(`tests/.tmp/${tag}-`));
  const logs: string[] = [];
  const backend = await startBackend({
    port: 0,
    dbPort: await freePort(),
    dataDir,
    logRequests: false,
    log: (line) => logs.push(line),
  });
  const health = async () => (await fetch(`${backend.url}/auth/v1/health`)).status;
  return {
    backend,
    logs,
    health,
    async killPostgres() {
      const pid = Number((await fs.readFile(path.join(dataDir, 'db', 'postmaster.pid'), 'utf8')).split('\n')[0]);
      process.kill(pid, 'SIGKILL');
    },
    async healthBecomes(status) {
      while ((await health().catch(() => 0)) !== status) await new Promise((r) => setTimeout(r, 50));
    },
    async cleanup() {
      await backend.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

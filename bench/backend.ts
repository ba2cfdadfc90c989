import fs from 'node:fs/promises';
import path from 'node:path';
import { startBackend, type Backend, type StartOptions } from '../server/backend.ts';
import { freePort } from '../tests/setup/ports.ts';

/** A backend for one bench section, on free ports in a fresh directory under bench/.tmp. */
export async function benchBackend(options: StartOptions = {}): Promise<Backend & { cleanup(): Promise<void> }> {
  const root = path.resolve('bench/.tmp');
  await fs.mkdir(root, { recursive: true });
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(root, 'b-')));
  const backend = await startBackend({
    port: 0,
    dbPort: await freePort(),
    dataDir,
    logRequests: false,
    log: () => undefined,
    ...options,
  });
  return {
    ...backend,
    async cleanup() {
      await backend.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

import fs from 'node:fs/promises';
import path from 'node:path';
import { buildApp, serveApp, type AppServer } from '../../server/start.ts';
import { appBuildDir } from './app-build.ts';
import { backendInfo } from './clients.ts';

export { launchChromium } from './chromium.ts';

export interface ServedApp extends AppServer {
  dir: string;
}

const BUILT = '.built';
const FAILED = '.failed';

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * The app built once for the whole run: the first e2e file to ask takes the lock (an
 * atomic mkdir) and builds; the others wait for its marker file, a fact, not a time.
 * Every file then serves the same directory with a server of its own, since the
 * runtime config (the backend's address) is written into index.html as it is served.
 */
async function sharedBuild(): Promise<string> {
  const dir = appBuildDir(backendInfo().dataDir);
  const lock = `${dir}.lock`;
  let builder = true;
  try {
    await fs.mkdir(lock);
  } catch {
    builder = false;
  }
  if (builder) {
    try {
      await buildApp({ root: path.resolve('.'), outDir: dir, quiet: true });
      await fs.writeFile(path.join(dir, BUILT), 'ok');
    } catch (error) {
      await fs.writeFile(path.join(lock, FAILED), error instanceof Error ? error.message : String(error));
      throw error;
    }
    return dir;
  }
  for (;;) {
    if (await exists(path.join(dir, BUILT))) return dir;
    if (await exists(path.join(lock, FAILED)))
      throw new Error(
        `the app's build failed in another test file: ${await fs.readFile(path.join(lock, FAILED), 'utf8')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Serves this run's one build of the app (built on first use) with the same static
 * server as `npm start`, its runtime config pointing at this run's test backend.
 */
export async function buildAndServeApp(): Promise<ServedApp> {
  const dir = await sharedBuild();
  const { url, anonKey } = backendInfo();
  const server = await serveApp({ dir, port: 0, runtime: { supabaseUrl: url, supabaseAnonKey: anonKey } });
  return { ...server, dir };
}

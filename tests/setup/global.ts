import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startBackend, type Backend } from '../../server/backend.ts';
import { appBuildDir } from './app-build.ts';
import { launchChromiumServer, SHARED_BROWSER_ENV } from './chromium.ts';
import { freePort } from './ports.ts';

export interface BackendInfo {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  /** As `postgres`, not a superuser, as on hosted. */
  databaseUrl: string;
  /** As the superuser supabase_admin, for arranging what only the platform may. */
  adminDatabaseUrl: string;
  jwtSecret: string;
  dataDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    backend: BackendInfo;
  }
}

let backend: Backend | null = null;
let browser: Awaited<ReturnType<typeof launchChromiumServer>> | null = null;

/** One real backend (PostgreSQL + gateway) on free ports and a fresh data dir for the whole run. */
export async function setup(project: TestProject): Promise<void> {
  const root = path.resolve('tests/.tmp');
  await fs.mkdir(root, { recursive: true });
  const dataDir = await fs.mkdtemp(path.join(root, 'run-'));
  const logs: string[] = [];
  backend = await startBackend({
    port: 0,
    dbPort: await freePort(),
    dataDir,
    logRequests: false,
    // Every test signs in from 127.0.0.1: the per-IP failure limit is tested on its own
    // gateway (tests/server/auth-config.test.ts), so the shared one must not trip it.
    auth: { signInLimit: { maxFailuresPerIp: 100_000 } },
    log: (line) => {
      logs.push(line);
      if (process.env.CHARTROOM_TEST_LOG) console.log(line);
    },
  });
  // One Chromium for the run, started beside the backend: the workers forked after this
  // inherit its address. Without Chromium here, each browser test launches (and fails) on its own.
  try {
    browser = await launchChromiumServer();
    process.env[SHARED_BROWSER_ENV] = browser.wsEndpoint();
  } catch (error) {
    console.warn(`no shared Chromium for this run: ${error instanceof Error ? error.message : String(error)}`);
  }
  project.provide('backend', {
    url: backend.url,
    anonKey: backend.anonKey,
    serviceRoleKey: backend.serviceRoleKey,
    databaseUrl: backend.databaseUrl,
    adminDatabaseUrl: backend.adminDatabaseUrl,
    jwtSecret: backend.config.jwtSecret,
    dataDir,
  });
}

export async function teardown(): Promise<void> {
  await browser?.close();
  browser = null;
  if (!backend) return;
  const { dataDir } = backend.config;
  await backend.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
  // The e2e files' shared build of the app and its lock, when any e2e file ran.
  for (const dir of [appBuildDir(dataDir), `${appBuildDir(dataDir)}.lock`])
    await fs.rm(dir, { recursive: true, force: true });
}

import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildApp, serveApp, type AppServer } from '../../server/start.ts';
import { backendInfo } from './clients.ts';

/** Debian's Chromium, headless, with nothing phoning home during tests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--headless=new',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ServedApp extends AppServer {
  dir: string;
}

/**
 * Builds the app once into a fresh directory and serves it with the same static server
 * as `npm start`, its runtime config pointing at this run's test backend.
 */
export async function buildAndServeApp(): Promise<ServedApp> {
  const root = path.resolve('.');
  const tmp = path.resolve('tests/.tmp');
  await fs.mkdir(tmp, { recursive: true });
  const dir = await fs.mkdtemp(path.join(tmp, 'app-'));
  await buildApp({ root, outDir: dir, quiet: true });
  const { url, anonKey } = backendInfo();
  const server = await serveApp({ dir, port: 0, runtime: { supabaseUrl: url, supabaseAnonKey: anonKey } });
  return {
    ...server,
    dir,
    close: async () => {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

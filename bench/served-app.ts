import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { buildApp, serveApp } from '../server/start.ts';
import { launchChromium } from '../tests/setup/browser.ts';
import { benchBackend } from './backend.ts';

export interface BenchApp {
  backend: Awaited<ReturnType<typeof benchBackend>>;
  /** Where the built app is served, and the build's directory (for asset sizes). */
  url: string;
  dir: string;
  browser: Browser;
  close(): Promise<void>;
}

/** The built app served over a fresh embedded backend, and Chromium: what browser sections measure. */
export async function benchApp(): Promise<BenchApp> {
  const backend = await benchBackend();
  const dir = await fs.mkdtemp(path.join(path.resolve('bench/.tmp'), 'app-'));
  const browser = await launchChromium();
  let server: Awaited<ReturnType<typeof serveApp>> | null = null;
  const close = async () => {
    await browser.close();
    await server?.close();
    await fs.rm(dir, { recursive: true, force: true });
    await backend.cleanup();
  };
  try {
    await buildApp({ root: path.resolve('.'), outDir: dir, quiet: true });
    server = await serveApp({ dir, port: 0, runtime: { supabaseUrl: backend.url, supabaseAnonKey: backend.anonKey } });
  } catch (error) {
    await close();
    throw error;
  }
  return { backend, url: server.url, dir, browser, close };
}

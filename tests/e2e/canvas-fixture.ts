import path from 'node:path';
import react from '@vitejs/plugin-react';
import type { Browser } from 'playwright-core';
import { createServer } from 'vite';
import { launchChromium } from '../setup/browser.ts';

export interface CanvasFixture {
  /** The address of the page asked for. */
  url: string;
  browser: Browser;
  /** Closes the browser, then the server. */
  close: () => Promise<void>;
}

/**
 * The canvas test pages (tests/e2e/fixtures/canvas/) on Vite's dev server, so the elkjs Web
 * Worker runs as it does in the app, and headless Chromium: `page` is the page's path in
 * that folder ('' for index.html).
 */
export async function serveCanvasFixture(page: string): Promise<CanvasFixture> {
  const server = await createServer({
    root: path.resolve('tests/e2e/fixtures/canvas'),
    configFile: false,
    logLevel: 'error',
    plugins: [react()],
    server: { host: '127.0.0.1', port: 0, fs: { allow: [path.resolve('.')] } },
  });
  try {
    await server.listen();
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const browser = await launchChromium();
    return {
      url: `http://127.0.0.1:${address.port}/${page}`,
      browser,
      close: async () => {
        await browser.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

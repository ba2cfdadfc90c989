import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = {
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
};

/** Where the test run's one Chromium listens (set by tests/setup/global.ts), if it started one. */
export const SHARED_BROWSER_ENV = 'CHARTROOM_TEST_BROWSER_WS';

/** Debian's Chromium as a server for a whole test run: files connect instead of launching their own. */
export function launchChromiumServer() {
  return chromium.launchServer(CHROMIUM);
}

/**
 * Debian's Chromium, headless, with nothing phoning home during tests: a connection to the
 * run's shared browser when there is one (closing it closes only this file's contexts),
 * else a browser of its own.
 */
export function launchChromium(): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER_ENV];
  return shared ? chromium.connect(shared) : chromium.launch(CHROMIUM);
}

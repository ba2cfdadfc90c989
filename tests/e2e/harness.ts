import type { Browser, BrowserContext, BrowserContextOptions, Download, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { buildAndServeApp, launchChromium, type ServedApp } from '../setup/browser.ts';
import { uniqueEmail } from '../setup/clients.ts';

/**
 * A download's bytes, read through the browser's connection: the run's one Chromium is a
 * browser server, so a download has no local path (`download.path()` refuses).
 */
export async function downloaded(download: Download): Promise<Buffer> {
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The password of every account these tests make. */
export const PASSWORD = 'correct-horse-battery';

/** Types into the sign-in form's fields, found by their labels as a person finds them. */
export async function fillCredentials(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
}

/** Fills the sign-in form and presses Create account; waits for nothing after. */
export async function createAccount(page: Page, email: string): Promise<void> {
  await fillCredentials(page, email);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** Waits until the top bar offers Sign out, that is until someone is signed in. */
export async function signedIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The machine page's side panels, each a region named by its title and opened by a tab of the same name. */
export type PanelName =
  'Code' | 'Inspector' | 'Simulation' | 'Tests' | 'Timeline' | 'Versions' | 'Comments' | 'Proposals';

/**
 * Opens one of the machine page's side panels unless it is open already: the tabs (in the
 * group "Panels") toggle, one panel is open at a time, and the choice is remembered per person.
 */
export async function showPanel(page: Page, name: PanelName): Promise<void> {
  const tab = page.getByRole('group', { name: 'Panels' }).getByRole('button', { name, exact: true });
  if ((await tab.getAttribute('aria-pressed')) !== 'true') await tab.click();
  await page.getByRole('region', { name, exact: true }).waitFor();
}

/** Closes the open side panel, if any, leaving its strip of tabs (a bottom row on a phone). */
export async function closePanels(page: Page): Promise<void> {
  const open = page.getByRole('group', { name: 'Panels' }).locator('button[aria-pressed="true"]');
  if ((await open.count()) > 0) await open.first().click();
  await page.locator('.machine-dock[data-open="none"]').waitFor();
}

export interface BrowserApp {
  /** The served app's address; read it inside tests and hooks. */
  readonly url: string;
  /** A fresh browser context (its own storage, so its own session), closed after the file. */
  readonly newContext: (options?: BrowserContextOptions) => Promise<BrowserContext>;
  /** A page in a fresh context. */
  readonly newPage: (options?: BrowserContextOptions) => Promise<Page>;
  /** Closes the contexts made so far, for files that want a clean browser per test. */
  readonly closeContexts: () => Promise<void>;
  /** A new account made through the UI in a fresh context, from the page at `path`, and signed in. */
  readonly signUp: (options?: {
    tag?: string;
    path?: string;
  }) => Promise<{ context: BrowserContext; page: Page; email: string }>;
  /** Signs an existing account in through the UI in a fresh context. */
  readonly signIn: (email: string, options?: BrowserContextOptions) => Promise<{ context: BrowserContext; page: Page }>;
}

/**
 * The built app, served as `npm start` serves it against the test backend, and headless
 * Chromium, for the e2e file that calls this at its top level: both started in beforeAll
 * (`timeout` for a file whose build may be slower than the default hook bound), and
 * every context made through it, the browser and the app closed in afterAll.
 */
export function useBrowserApp(options: { timeout?: number } = {}): BrowserApp {
  let app: ServedApp | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([buildAndServeApp(), launchChromium()]);
  }, options.timeout);

  const closeContexts = async () => {
    for (const context of contexts.splice(0)) await context.close();
  };

  afterAll(async () => {
    await closeContexts();
    await browser?.close();
    await app?.close();
  });

  const started = () => {
    if (!app || !browser) throw new Error('the app and browser are not running: use them inside tests and hooks');
    return { app, browser };
  };
  const newContext = async (contextOptions?: BrowserContextOptions) => {
    const context = await started().browser.newContext(contextOptions);
    contexts.push(context);
    return context;
  };
  const newPage = async (contextOptions?: BrowserContextOptions) => (await newContext(contextOptions)).newPage();

  return {
    get url() {
      return started().app.url;
    },
    newContext,
    newPage,
    closeContexts,
    signUp: async ({ tag = 'e2e', path = '/' } = {}) => {
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(started().app.url + path);
      const email = uniqueEmail(tag);
      await createAccount(page, email);
      await signedIn(page);
      return { context, page, email };
    },
    signIn: async (email, contextOptions) => {
      const context = await newContext(contextOptions);
      const page = await context.newPage();
      await page.goto(started().app.url);
      await fillCredentials(page, email);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await signedIn(page);
      return { context, page };
    },
  };
}

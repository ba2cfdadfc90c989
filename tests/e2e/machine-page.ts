import type { Locator, Page } from 'playwright-core';
import type { BrowserApp } from './harness.ts';

/** A state's box on the diagram, as a person finds it: the button named `state <key>`. */
export const stateBox = (page: Page, key: string): Locator =>
  page.getByRole('button', { name: `state ${key}`, exact: true });

/** Waits until the machine page says its document is synced with the server. */
export const synced = (page: Page): Promise<void> => page.locator('[data-sync="synced"]').waitFor();

/** Opens the page of machine `machineId` in project `projectId` and waits until its state `key` is drawn. */
export async function openMachinePage(
  app: BrowserApp,
  page: Page,
  projectId: string,
  machineId: string,
  key: string,
): Promise<void> {
  await page.goto(`${app.url}/p/${projectId}/m/${machineId}`);
  await stateBox(page, key).waitFor({ timeout: 60_000 });
}

/** The Simulation side panel. */
export const simulationPanel = (page: Page): Locator => page.getByRole('region', { name: 'Simulation' });
/** A state drawn active on the diagram, by its path. */
export const activeState = (page: Page, path: string): Locator =>
  page.locator(`[data-state-path="${path}"][data-active="true"]`);
/** Every state drawn active, by path, sorted. */
export const activePaths = (page: Page): Promise<(string | null)[]> =>
  page.locator('[data-active="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-state-path')).sort());

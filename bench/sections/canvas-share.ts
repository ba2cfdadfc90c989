import { connectionMachine, diagramShare, enterShareState, SHARE_STATES } from '../../tests/e2e/canvas-share.ts';
import type { BenchContext } from '../lib.ts';
import { benchApp } from '../served-app.ts';
import { person, signedInPage } from './canvas.ts';

/**
 * The canvas is the page: the share of the window that shows the diagram (the
 * region "Diagram", less anything over it, sampled on an 8 px grid as
 * tests/e2e/canvas-share.test.ts reads it), on the built app in Chromium, for the
 * `connection` example: every panel closed, each panel open, and simulating. Printed, never
 * pass/fail; the e2e test holds the floors (>= 90% closed, >= 60% with a panel open).
 */
const SIZES = [
  { label: '1280x800', width: 1280, height: 800 },
  { label: '1600x1000', width: 1600, height: 1000 },
] as const;

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  try {
    const a = await person(bench.backend.url, bench.backend.anonKey, 'share');
    const { projectId, machineId } = await connectionMachine(a.client, 'Bench canvas share');

    for (const size of SIZES) {
      ctx.section(`Canvas share of the window at ${size.label} (the machine page, connection example)`);
      const page = await signedInPage(bench.browser, bench.url, a.email);
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${bench.url}/p/${projectId}/m/${machineId}`);
      await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
      await page.locator('.st').first().waitFor({ timeout: 60_000 });
      for (const state of SHARE_STATES) {
        await enterShareState(page, state);
        await page.waitForTimeout(150);
        const share = await diagramShare(page);
        ctx.report(state, `${(share * 100).toFixed(1)}%`, state.includes('all closed') ? '>= 90%' : '>= 60%');
      }
      await page.context().close();
    }
  } finally {
    await bench.close();
  }
}

import { createWebSocketInspector } from '@statelyai/inspect';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import { toggleMachine } from '../server/inspect-helpers.ts';
import { useBrowserApp } from './harness.ts';
import { createProject, signUpAccount } from './people.ts';

/**
 * Live inspection end to end ("Done when"), with real parts: an owner creates a
 * source in browser A and copies the snippet; this Node process runs a real XState actor
 * with the stock createWebSocketInspector pointed at the snippet's URL; A and B (an
 * editor) both see the session, the actor tree, the diagram with live active states, the
 * log (payloads as text) and the context; B replays; A saves the machine and B sees it
 * arrive; revoking the key closes the app's socket.
 */

const app = useBrowserApp({ timeout: 240_000 });
let projectId: string;
let a: Page;
let b: Page;
let c: Page;
let inspector: ReturnType<typeof createWebSocketInspector> | null = null;
let actor: AnyActorRef | null = null;

const person = (tag: string) => signUpAccount(`inspect-${tag}`);

const active = (page: Page, path: string) => page.locator(`[data-state-path="${path}"][data-active="true"]`);
const log = (page: Page) => page.getByRole('list', { name: 'Event log' });

beforeAll(async () => {
  const [pa, pb, pc] = await Promise.all([person('ada'), person('bo'), person('cy')]);
  projectId = await createProject(pa.client, 'Inspected app', [
    { id: pb.id, role: 'editor' },
    { id: pc.id, role: 'viewer' },
  ]);
  const viewport = { viewport: { width: 1400, height: 1000 } };
  const [sa, sb, sc] = await Promise.all([
    app.signIn(pa.email, viewport),
    app.signIn(pb.email, viewport),
    app.signIn(pc.email, viewport),
  ]);
  a = sa.page;
  b = sb.page;
  c = sc.page;
}, 240_000);

afterAll(() => {
  actor?.stop();
  inspector?.stop();
});

describe('watch your app together', () => {
  it('from a new source to two browsers watching, replaying, saving and revoking', async () => {
    // A, the owner, opens the inspection page from the room and creates a source.
    await a.goto(`${app.url}/p/${projectId}`);
    await a.getByRole('link', { name: 'Watch your app' }).click();
    await a.getByLabel('New source').fill('web app');
    await a.getByRole('button', { name: 'Create source' }).click();
    const snippet = await a.getByTestId('inspect-snippet').textContent();
    const key = await a.getByTestId('inspect-key').textContent();
    const url = /url: '([^']+)'/.exec(snippet ?? '')?.[1] ?? '';
    expect(url).toMatch(/^ws:\/\/.+\/functions\/v1\/inspect\?key=cri_[0-9a-f]{48}$/);
    expect(url.endsWith(`key=${key}`)).toBe(true);

    // B, an editor, sees the source but cannot create or revoke.
    await b.goto(`${app.url}/p/${projectId}/inspect`);
    await b.getByRole('list', { name: 'Sources' }).getByText('web app', { exact: true }).waitFor();
    expect(await b.getByRole('button', { name: 'Create source' }).count()).toBe(0);
    expect(await b.getByRole('button', { name: 'Revoke web app' }).count()).toBe(0);

    // The app: a real machine, the stock inspector, the snippet's URL.
    inspector = createWebSocketInspector({ url });
    actor = createActor(toggleMachine, { inspect: inspector.inspect }).start();
    actor.send({ type: 'switch.flip' });

    for (const page of [a, b]) {
      await page.getByRole('list', { name: 'Actors' }).getByRole('button', { name: 'toggle' }).click();
      await page.getByTestId('inspect-diagram').waitFor();
      await active(page, 'on').waitFor();
      await log(page).getByText('switch.flip').first().waitFor();
    }

    // The machine is drawn on the page's canvas (like the machine page's), not in a box:
    // at 1400x1000 it gets well over half of the window beside the one side panel.
    const share = await a.evaluate(() => {
      const frame = document.querySelector('[data-testid="inspect-diagram"]')!.getBoundingClientRect();
      return (frame.width * frame.height) / (window.innerWidth * window.innerHeight);
    });
    expect(share).toBeGreaterThan(0.6);

    // Live: the next flip moves both diagrams; a payload with markup stays text.
    actor.send({ type: 'switch.flip', note: '<img src=x onerror="window.__pwned=1">' });
    for (const page of [a, b]) {
      await active(page, 'off').waitFor();
      await log(page).getByText('onerror', { exact: false }).waitFor();
      expect(await log(page).locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      await page.getByLabel('Context').getByText('flips:').waitFor();
      expect(await page.getByLabel('Context').textContent()).toContain('2');
    }

    // The session's count matches what is stored, in both browsers.
    for (const page of [a, b]) {
      await expect
        .poll(() => page.getByRole('list', { name: 'Sessions' }).textContent(), { timeout: 20_000 })
        .toContain(' 7 events');
    }

    // Fit: the diagram is fitted when first shown, and the Fit button fits it again after
    // the frame changed size; every state is then inside the frame.
    const inside = (page: Page) =>
      page.evaluate(() => {
        const frame = document.querySelector('[data-testid="inspect-diagram"]')!.getBoundingClientRect();
        const states = [...document.querySelectorAll('[data-testid="inspect-diagram"] [data-state-path]')];
        return (
          states.length > 0 &&
          states.every((el) => {
            const r = el.getBoundingClientRect();
            return r.left >= frame.left && r.right <= frame.right && r.top >= frame.top && r.bottom <= frame.bottom;
          })
        );
      });
    expect(await inside(a)).toBe(true);
    await a.setViewportSize({ width: 760, height: 1000 });
    await a.getByRole('button', { name: 'Fit', exact: true }).click();
    await a.waitForFunction(() => {
      const frame = document.querySelector('[data-testid="inspect-diagram"]')!.getBoundingClientRect();
      return [...document.querySelectorAll('[data-testid="inspect-diagram"] [data-state-path]')].every((el) => {
        const r = el.getBoundingClientRect();
        return r.left >= frame.left && r.right <= frame.right;
      });
    });
    expect(await inside(a)).toBe(true);
    await a.setViewportSize({ width: 1400, height: 1000 });

    // Retention: B (an editor) changes what the source keeps; A sees it live.
    await b.getByRole('button', { name: 'Change what web app keeps' }).click();
    await b.getByLabel('Events kept').fill('5000');
    await b.getByLabel('Days kept').fill('3');
    await b.getByRole('button', { name: 'Keep', exact: true }).click();
    for (const page of [a, b]) {
      await page.getByTestId('inspect-retention').getByText('Keeps the last 5,000 events, 3 days').waitFor();
    }

    // B replays: scrubbing back to just after the first flip shows `on` again (live: `off`).
    // The run: actor, init event, snapshot off, flip, snapshot on, flip, snapshot off.
    const total = Number(((await b.getByTestId('inspect-position').textContent()) ?? '').split('/')[1]);
    expect(total).toBe(7);
    await b.getByLabel('Position').fill('5');
    await b.getByTestId('inspect-position').getByText(`5 / ${total}`).waitFor();
    await active(b, 'on').waitFor();
    expect(await active(b, 'off').count()).toBe(0);
    expect(await active(a, 'off').count()).toBe(1);
    await b.getByRole('button', { name: 'Follow live' }).click();
    await b.getByRole('button', { name: 'Following live' }).waitFor();

    // A saves the machine; B, on the project page, sees it arrive.
    await b.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Inspected app' }).click();
    await b.getByRole('link', { name: 'Watch your app' }).waitFor();
    await a.getByLabel('Machine name').fill('Toggle from the app');
    await a.getByRole('button', { name: 'Save as machine' }).click();
    await b.getByText('Toggle from the app').first().waitFor({ timeout: 30_000 });

    // A revokes: the app's socket is closed by the function, and the key opens nothing.
    const socket = (inspector.adapter as unknown as { ws: WebSocket }).ws;
    const closed = new Promise<number>((resolve) => socket.addEventListener('close', (e) => resolve(e.code)));
    await a.getByRole('button', { name: 'Revoke web app' }).click();
    expect(await closed).toBe(4001);
    await a.getByRole('list', { name: 'Sources' }).getByText('revoked').waitFor();
    const post = await fetch(url.replace(/^ws/, 'http'), { method: 'POST', body: '[]' });
    expect(post.status).toBe(401);
    await b.goto(`${app.url}/p/${projectId}/inspect`);
    await b.getByRole('list', { name: 'Sources' }).getByText('revoked').waitFor();

    // A viewer reads the retention and cannot change it.
    await c.goto(`${app.url}/p/${projectId}/inspect`);
    await c.getByTestId('inspect-retention').getByText('Keeps the last 5,000 events, 3 days').waitFor();
    expect(await c.getByRole('button', { name: 'Change what web app keeps' }).count()).toBe(0);
  }, 240_000);
});

import { createWebSocketInspector } from '@statelyai/inspect';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type AnyActorRef } from 'xstate';
import { backendInfo } from '../setup/clients.ts';
import { toggleMachine } from '../server/inspect-helpers.ts';
import { useBrowserApp } from './harness.ts';
import { createProject, signUpAccount, type Client } from './people.ts';

/**
 * Follow mode on the inspection page ("Follow mode works here too"), two browsers
 * and a real app: A presents; B follows A and sees A's session, actor (its diagram) and
 * replay position as A changes them; B picking a position itself stops following.
 */

const app = useBrowserApp({ timeout: 240_000 });
let projectId: string;
let ownerClient: Client;
let a: Page;
let b: Page;
let inspector: ReturnType<typeof createWebSocketInspector> | null = null;
let actor: AnyActorRef | null = null;

const person = (tag: string) => signUpAccount(`follow-${tag}`);

beforeAll(async () => {
  const [pa, pb] = await Promise.all([person('ada'), person('bo')]);
  ownerClient = pa.client;
  projectId = await createProject(pa.client, 'Followed app', [{ id: pb.id, role: 'viewer' }]);
  const viewport = { viewport: { width: 1400, height: 1000 } };
  const [sa, sb] = await Promise.all([app.signIn(pa.email, viewport), app.signIn(pb.email, viewport)]);
  a = sa.page;
  b = sb.page;
}, 240_000);

afterAll(() => {
  actor?.stop();
  inspector?.stop();
});

const position = (page: Page) => page.getByTestId('inspect-position');

describe('follow mode on the inspection page', () => {
  it('B follows A through session, actor and replay position, and stops following by choosing', async () => {
    const created = await ownerClient.rpc('create_inspection_source', { p_project: projectId, p_name: 'web' });
    if (created.error) throw new Error(created.error.message);
    const { key } = created.data as unknown as { key: string };
    await Promise.all([a.goto(`${app.url}/p/${projectId}/inspect`), b.goto(`${app.url}/p/${projectId}/inspect`)]);
    await a.getByRole('button', { name: 'Present what I look at' }).waitFor();
    await b.getByRole('button', { name: 'Present what I look at' }).waitFor();

    inspector = createWebSocketInspector({
      url: `${backendInfo().url.replace(/^http/, 'ws')}/functions/v1/inspect?key=${key}`,
    });
    actor = createActor(toggleMachine, { inspect: inspector.inspect }).start();
    actor.send({ type: 'switch.flip' });
    actor.send({ type: 'switch.flip' });

    // A picks the actor, then presents; B follows A.
    await a.getByRole('list', { name: 'Actors' }).getByRole('button', { name: 'toggle' }).click();
    await a.getByTestId('inspect-diagram').waitFor();
    await a.getByRole('button', { name: 'Present what I look at' }).click();
    await a.getByText('You are presenting.').waitFor();
    const followA = b.getByRole('list', { name: 'Presenters' }).getByRole('button', { name: /^Follow / });
    await followA.click();
    await b.getByText(/^Following .+\.$/).waitFor();
    await b.getByTestId('inspect-diagram').waitFor();
    expect(
      await b
        .getByRole('list', { name: 'Actors' })
        .getByRole('button', { name: 'toggle' })
        .getAttribute('aria-pressed'),
    ).toBe('true');

    // A scrubs back to the start of the session: B's position follows.
    await a.getByLabel('Position').fill('1');
    await expect.poll(() => position(a).textContent(), { timeout: 20_000 }).toMatch(/^1 \//);
    await expect.poll(() => position(b).textContent(), { timeout: 20_000 }).toMatch(/^1 \//);
    // A follows live again: so does B.
    await a.getByRole('button', { name: 'Follow live' }).click();
    await b.getByRole('button', { name: 'Following live' }).waitFor();

    // B chooses a position itself: following stops, and A's next move leaves B where it is.
    await b.getByLabel('Position').fill('2');
    await b.getByText(/^Following .+\.$/).waitFor({ state: 'detached' });
    await a.getByLabel('Position').fill('1');
    await expect.poll(() => position(a).textContent(), { timeout: 20_000 }).toMatch(/^1 \//);
    expect(await position(b).textContent()).toMatch(/^2 \//);
  }, 180_000);
});

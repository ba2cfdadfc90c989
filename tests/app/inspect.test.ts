import type { InspectionEvent, Observer } from 'xstate';
import { createActor, createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { deferredInspector } from '../../src/app/inspect.ts';

/**
 * `?inspect` opens Stately's inspector on stately.ai, which needs the
 * internet. It stays, optional: when it cannot load or fails while running, the app's
 * actors carry on, nothing piles up, and the console says so once.
 */

const machine = createMachine({
  id: 'toggle',
  initial: 'off',
  states: { off: { on: { FLIP: 'on' } }, on: { on: { FLIP: 'off' } } },
});

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

describe('the optional inspector', () => {
  it('forwards events, in order, once it has loaded (those sent while loading included)', async () => {
    const seen: string[] = [];
    let loaded: (o: Observer<InspectionEvent>) => void = () => undefined;
    const inspect = deferredInspector(
      () => new Promise((resolve) => (loaded = resolve)),
      () => undefined,
    );
    const actor = createActor(machine, { inspect }).start();
    actor.send({ type: 'FLIP' });
    loaded({ next: (e) => e.type === '@xstate.event' && seen.push(e.event.type) });
    await settle();
    actor.send({ type: 'FLIP' });
    expect(seen).toEqual(['xstate.init', 'FLIP', 'FLIP']);
  });

  it('unreachable (offline): the actors work, events are not kept, one warning', async () => {
    const warnings: string[] = [];
    const inspect = deferredInspector(
      () => Promise.reject(new Error('Failed to fetch dynamically imported module')),
      (m) => warnings.push(m),
    );
    const actor = createActor(machine, { inspect }).start();
    await settle();
    for (let i = 0; i < 5; i++) actor.send({ type: 'FLIP' });
    expect(actor.getSnapshot().value).toBe('on');
    expect(warnings).toEqual([
      'chartroom: the inspector is unavailable (Failed to fetch dynamically imported module); the app works without it',
    ]);
  });

  it('failing while running (its window gone): the actor that reported the event is not broken', async () => {
    const warnings: string[] = [];
    let calls = 0;
    const broken: Observer<InspectionEvent> = {
      next: () => {
        calls++;
        throw new Error('Cannot read properties of null (reading "postMessage")');
      },
    };
    const inspect = deferredInspector(
      () => Promise.resolve(broken),
      (m) => warnings.push(m),
    );
    await settle();
    const actor = createActor(machine, { inspect }).start();
    actor.send({ type: 'FLIP' });
    actor.send({ type: 'FLIP' });
    expect(actor.getSnapshot().value).toBe('off');
    expect(calls).toBe(1);
    expect(warnings).toHaveLength(1);
  });
});

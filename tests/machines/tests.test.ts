import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { testsMachine } from '../../machines/open-machine/tests.machine.ts';
import { applyOps } from '../../src/lib/model/index.ts';
import { fakeTestsPort, MACHINE, ok, savedTest, settle, testRun, toggle } from './tests.fakes.ts';

/**
 * What the tests machine keeps for the panel and the diagram besides the rows: each
 * test's staleness on this version, coverage while the switch is on (kept by the tracker
 * in its context), and the play selected.
 */

async function start() {
  const fake = fakeTestsPort();
  const actor = createActor(testsMachine.provide({ actors: fake.actors }), {
    input: { machineId: MACHINE, definition: toggle, version: 1 },
  }).start();
  await fake.settle('listTests', ok({ tests: [savedTest('a')], runs: [testRun('r', 'a')] }));
  await settle();
  return { fake, actor, context: () => actor.getSnapshot().context };
}

const busyId = Object.values(toggle.states).find((s) => s.key === 'busy')?.id ?? '';

describe('tests machine: what the panel and the diagram show', () => {
  it('measures coverage only while the switch is on, and again after an edit', async () => {
    const { actor, context } = await start();
    expect(context().measured).toBeNull();
    actor.send({ type: 'tests.toggleCoverage' });
    const measured = context().measured;
    expect(measured && [...measured.states.covered].sort()).toEqual(['busy', 'idle']);
    expect(measured?.transitions.covered.size).toBe(1);
    // Renaming `busy` keeps it covered under its new name.
    const renamed = applyOps(toggle, [{ type: 'state.rename', id: busyId, key: 'working' }]);
    actor.send({ type: 'tests.definitionChanged', definition: renamed, version: 2 });
    expect([...(context().measured?.states.covered ?? [])].sort()).toEqual(['idle', 'working']);
    actor.send({ type: 'tests.toggleCoverage' });
    expect(context().measured).toBeNull();
  });

  it('says a test is stale only when an edit changes what it gives', async () => {
    const { actor, context } = await start();
    expect(context().stale).toEqual({ a: { stale: false } });
    const renamed = applyOps(toggle, [{ type: 'state.rename', id: busyId, key: 'working' }]);
    actor.send({ type: 'tests.definitionChanged', definition: renamed, version: 2 });
    expect(context().stale.a).toMatchObject({ stale: true, missingState: true });
  });

  it('keeps the play selected, at the step shown (within the script), and the same object while it is the same', async () => {
    const { actor, context } = await start();
    expect(context().play).toBeNull();
    actor.send({ type: 'tests.select', id: 'a' });
    expect(context().play).toEqual({ title: 'test a', script: savedTest('a').script, step: 0 });
    actor.send({ type: 'tests.stepTo', step: 5 });
    expect(context().play?.step).toBe(1);
    const shown = context().play;
    actor.send({ type: 'tests.dismissError' });
    actor.send({ type: 'tests.toggleCoverage' });
    expect(context().play).toBe(shown);
    actor.send({ type: 'tests.select', id: null });
    expect(context().play).toBeNull();
  });
});

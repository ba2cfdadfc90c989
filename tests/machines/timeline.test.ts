import { describe, expect, it } from 'vitest';
import { createActor, createMachine, type ActorRefFrom, type AnyEventObject } from 'xstate';
import { timelineMachine } from '../../machines/open-machine/timeline.machine.ts';
import { mergeSorted } from '../../src/lib/timeline/index.ts';
import { door, fakeTimelinePort, idleId, MACHINE, MARK, ok, OPS, refused, START } from './timeline.fakes.ts';

function start() {
  const fake = fakeTimelinePort();
  const actor = createActor(timelineMachine.provide({ actors: fake.actors }), {
    input: { machineId: MACHINE },
  }).start();
  const entries = () => {
    const c = actor.getSnapshot().context;
    return mergeSorted(c.history.entries, c.others).map((e) => `${e.person ?? '?'} ${e.text}`);
  };
  return { fake, actor, entries };
}

describe('timeline machine', () => {
  it('reads the op log and the simulations, then grows as the head moves and facts arrive', async () => {
    const { fake, actor, entries } = start();
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    expect(fake.calls.map((c) => [c.name, c.input])).toEqual([
      ['readOps', { machineId: MACHINE, after: 0 }],
      ['readSimulations', { machineId: MACHINE }],
    ]);
    await fake.settle('readOps', ok(OPS.slice(0, 1)));
    await fake.settle('readSimulations', ok({ starts: [START], marks: [] }));
    expect(actor.getSnapshot().hasTag('loading')).toBe(false);
    expect(entries()).toEqual(['u-ada replaced the whole machine', 'u-ada started a simulation (version 2)']);

    actor.send({ type: 'timeline.headMoved', version: 2 });
    expect(fake.calls.at(-1)).toEqual({ name: 'readOps', input: { machineId: MACHINE, after: 1 } });
    actor.send({ type: 'timeline.headMoved', version: 1 });
    expect(fake.isOpen('readOps')).toBe(true);
    await fake.settle('readOps', ok(OPS.slice(1)));
    fake.emit({ type: 'timeline.eventsSent', marks: [MARK] });
    fake.emit({ type: 'timeline.eventsSent', marks: [MARK] });
    expect(entries()).toEqual([
      'u-ada replaced the whole machine',
      'u-bob renamed idle → waiting',
      'u-ada started a simulation (version 2)',
      'u-bob sent GO',
    ]);

    // Back after a drop: read again (repeats change nothing).
    fake.emit({ type: 'timeline.subscribed' });
    await fake.settle('readSimulations', ok({ starts: [START], marks: [MARK] }));
    expect(entries()).toHaveLength(4);
    actor.stop();
  });

  it('reads again when the head moved during a read', async () => {
    const { fake, actor } = start();
    actor.send({ type: 'timeline.headMoved', version: 2 });
    await fake.settle('readOps', ok(OPS.slice(0, 1)));
    expect(fake.calls.at(-1)).toEqual({ name: 'readOps', input: { machineId: MACHINE, after: 1 } });
    await fake.settle('readOps', ok(OPS.slice(1)));
    expect(actor.getSnapshot().context.history.version).toBe(2);
    expect(actor.getSnapshot().matches({ edits: 'idle' })).toBe(true);
    actor.stop();
  });

  it('stops reading when the log has nothing past its version, and reads again when the head moves', async () => {
    const { fake, actor } = start();
    actor.send({ type: 'timeline.headMoved', version: 2 });
    const reads = () => fake.calls.filter((c) => c.name === 'readOps').length;
    await fake.settle('readOps', ok([]));
    // The head is ahead but the log gave nothing: no second read (it would spin).
    expect(reads()).toBe(1);
    expect(actor.getSnapshot().matches({ edits: 'idle' })).toBe(true);
    actor.send({ type: 'timeline.headMoved', version: 3 });
    expect(reads()).toBe(2);
    await fake.settle('readOps', ok(OPS));
    expect(actor.getSnapshot().context.history.version).toBe(2);
    actor.stop();
  });

  it('notes who joins, once per arrival', async () => {
    const { fake, actor, entries } = start();
    await fake.settle('readOps', ok([]));
    const at = '2026-11-24T13:30:00.000Z';
    actor.send({ type: 'timeline.peersChanged', userIds: ['u-ada'], at });
    actor.send({ type: 'timeline.peersChanged', userIds: ['u-ada'], at });
    actor.send({ type: 'timeline.peersChanged', userIds: ['u-ada', 'u-bob'], at });
    actor.send({ type: 'timeline.peersChanged', userIds: ['u-ada'], at });
    actor.send({ type: 'timeline.peersChanged', userIds: ['u-ada', 'u-bob'], at });
    expect(entries()).toEqual(['u-ada joined', 'u-bob joined', 'u-bob joined']);
    actor.stop();
  });

  it('says why a read failed and reads again on retry', async () => {
    const { fake, actor } = start();
    await fake.settle('readOps', refused("Couldn't read the edit history: can't reach the server."));
    expect(actor.getSnapshot().hasTag('failed')).toBe(true);
    expect(actor.getSnapshot().context.error).toMatch(/can't reach the server/);
    actor.send({ type: 'timeline.retry' });
    await fake.settle('readOps', ok(OPS));
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(actor.getSnapshot().context.history.entries).toHaveLength(2);
    actor.stop();
  });

  it('time travels to an edit, read-only, and restores it through the open machine', async () => {
    const fake = fakeTimelinePort();
    const told: AnyEventObject[] = [];
    const parent = createMachine({
      invoke: {
        id: 'timeline',
        src: timelineMachine.provide({ actors: fake.actors }),
        input: ({ self }) => ({ machineId: MACHINE, editor: self }),
      },
      on: { '*': { actions: ({ event }) => told.push(event) } },
    });
    const actor = createActor(parent).start();
    const timeline = () => actor.getSnapshot().children.timeline as ActorRefFrom<typeof timelineMachine>;
    await fake.settle('readOps', ok(OPS));
    timeline().send({ type: 'timeline.open', key: 'edit:99' });
    expect(timeline().getSnapshot().hasTag('previewing')).toBe(false);

    timeline().send({ type: 'timeline.open', key: 'edit:1' });
    const preview = timeline().getSnapshot().context.preview;
    expect(preview?.definition).toEqual(door);
    expect(preview?.entry.changed).toEqual([]);
    expect(fake.laidOut).toEqual([{ type: 'layout.request', definition: door }]);

    timeline().send({ type: 'timeline.open', key: 'edit:2' });
    const renamed = timeline().getSnapshot().context.preview;
    expect(renamed?.definition.states[idleId]?.key).toBe('waiting');
    expect(renamed?.entry.changed).toEqual([idleId]);
    expect(fake.laidOut).toHaveLength(2);

    timeline().send({ type: 'timeline.open', key: 'edit:1' });
    timeline().send({ type: 'timeline.restore' });
    expect(told.filter((e) => e.type === 'machine.replace')).toEqual([{ type: 'machine.replace', definition: door }]);
    expect(timeline().getSnapshot().context.preview).toBeNull();

    timeline().send({ type: 'timeline.open', key: 'edit:2' });
    timeline().send({ type: 'timeline.close' });
    expect(timeline().getSnapshot().matches({ preview: 'closed' })).toBe(true);
    expect(told.filter((e) => e.type === 'machine.replace')).toHaveLength(1);
    actor.stop();
  });

  it('keeps the filter: kinds toggle on and off, one person or everyone', () => {
    const { actor } = start();
    const filter = () => actor.getSnapshot().context.filter;
    actor.send({ type: 'timeline.filter.toggle', kind: 'edit' });
    actor.send({ type: 'timeline.filter.toggle', kind: 'event' });
    actor.send({ type: 'timeline.filter.person', person: 'u-bob' });
    expect(filter()).toEqual({ kinds: ['edit', 'event'], person: 'u-bob' });
    // Two quick toggles of one kind cancel out: each is worked out from the machine's filter.
    actor.send({ type: 'timeline.filter.toggle', kind: 'edit' });
    expect(filter()).toEqual({ kinds: ['event'], person: 'u-bob' });
    actor.send({ type: 'timeline.filter.toggle', kind: 'edit' });
    actor.send({ type: 'timeline.filter.toggle', kind: 'edit' });
    actor.send({ type: 'timeline.filter.person', person: null });
    expect(filter()).toEqual({ kinds: ['event'], person: null });
    actor.stop();
  });
});

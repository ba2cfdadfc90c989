import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { fakeCommentCounts } from './comment-counts.fakes.ts';

/**
 * The room's unread comment counts: read only once the live channels listen, read again
 * when they say something moved, once more (not once per move) when moves arrive during a
 * read, and kept on screen when a read fails, until the next move.
 */

const start = () => {
  const fake = fakeCommentCounts();
  const actor = createActor(fake.logic, { input: { projectId: 'p-1' } }).start();
  return { ...fake, actor };
};

describe('comment counts machine', () => {
  it('reads once the channels listen, and again on each move', async () => {
    const f = start();
    expect(f.held.isOpen('loadCounts')).toBe(false);
    f.facts.next({ type: 'counts.subscribed' });
    expect(f.held.calls).toEqual([{ name: 'loadCounts', input: { projectId: 'p-1' } }]);
    await f.held.settle('loadCounts', { ok: true, value: { m1: { threads: 2, mentions: 1 } } });
    expect(f.actor.getSnapshot().context.counts).toEqual({ m1: { threads: 2, mentions: 1 } });
    expect(f.actor.getSnapshot().value).toBe('ready');

    f.facts.next({ type: 'counts.moved', machineId: 'm1' });
    expect(f.held.isOpen('loadCounts')).toBe(true);
    await f.held.settle('loadCounts', { ok: true, value: {} });
    expect(f.actor.getSnapshot().context.counts).toEqual({});
  });

  it('reads once more when moves arrive during a read, not once per move', async () => {
    const f = start();
    f.facts.next({ type: 'counts.subscribed' });
    for (const machineId of ['m1', 'm2', 'm1']) f.facts.next({ type: 'counts.moved', machineId });
    await f.held.settle('loadCounts', { ok: true, value: { m1: { threads: 1, mentions: 0 } } });
    expect(f.held.calls).toHaveLength(2);
    expect(f.actor.getSnapshot().context.counts).toEqual({ m1: { threads: 1, mentions: 0 } });
    await f.held.settle('loadCounts', { ok: true, value: { m1: { threads: 2, mentions: 0 } } });
    expect(f.held.calls).toHaveLength(2);
    expect(f.actor.getSnapshot().matches('ready')).toBe(true);
    expect(f.actor.getSnapshot().context.counts).toEqual({ m1: { threads: 2, mentions: 0 } });
  });

  it('keeps the last counts when a read is refused or throws, and reads on the next move or retry', async () => {
    const f = start();
    f.facts.next({ type: 'counts.subscribed' });
    await f.held.settle('loadCounts', { ok: true, value: { m1: { threads: 1, mentions: 0 } } });
    f.facts.next({ type: 'counts.moved', machineId: 'm1' });
    await f.held.settle('loadCounts', { ok: false, error: { code: 'network', message: "Couldn't count." } });
    expect(f.actor.getSnapshot().hasTag('failed')).toBe(true);
    expect(f.actor.getSnapshot().context).toMatchObject({
      counts: { m1: { threads: 1, mentions: 0 } },
      error: "Couldn't count.",
    });
    f.facts.next({ type: 'counts.moved', machineId: 'm1' });
    await f.held.fail('loadCounts', new Error('adapter bug'));
    expect(f.actor.getSnapshot().context.error).toBe('Something went wrong. Try again.');
    f.actor.send({ type: 'counts.retry' });
    await f.held.settle('loadCounts', { ok: true, value: {} });
    expect(f.actor.getSnapshot().context).toMatchObject({ counts: {}, error: null });
  });
});

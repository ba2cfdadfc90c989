import { describe, expect, it } from 'vitest';
import { flush, ok, runSession, seqs, stored } from './inspection-session.fakes.ts';

/**
 * The picked session's events: a batch dropped or late while the socket stays up
 * is noticed as soon as the next batch arrives (its first seq lies beyond the next one
 * expected for the source), and the missing range is read in the database's order: nothing
 * lost, nothing twice.
 */

const batch = (...seq: number[]) => ({ type: 'inspection.eventsReceived' as const, events: seq.map((s) => stored(s)) });

async function live(...read: number[]) {
  const run = runSession();
  expect(run.calls).toEqual([{ name: 'loadEvents', input: { sessionId: 'ses-1', afterSeq: 0 } }]);
  await run.settle('loadEvents', ok(read.map((s) => stored(s))));
  expect(run.getSnapshot().hasTag('live')).toBe(true);
  return run;
}

describe('inspection session: missed events', () => {
  it('a dropped batch is read back as soon as the next batch shows the gap', async () => {
    const run = await live(1, 2);
    run.send(batch(3, 4));
    expect(run.isOpen('loadEvents')).toBe(false);
    // 5 and 6 are dropped on the way; 7 arrives: the page notices at once, before any rejoin.
    run.send(batch(7));
    expect(run.getSnapshot().hasTag('syncing')).toBe(true);
    expect(seqs(run.getSnapshot().context.events)).toEqual([1, 2, 3, 4]);
    expect(run.take('loadEvents').input).toEqual({ sessionId: 'ses-1', afterSeq: 4 });
    run.stop();
  });

  it('the read fills the gap in order, and the late batch adds nothing twice', async () => {
    const run = await live(1, 2);
    run.send(batch(5, 6));
    await run.settle('loadEvents', ok([stored(3), stored(4), stored(5), stored(6)]));
    expect(seqs(run.getSnapshot().context.events)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(run.getSnapshot().hasTag('live')).toBe(true);
    // The batch that was late arrives after all: already shown, so nothing changes.
    const before = run.getSnapshot().context.events;
    run.send(batch(3, 4));
    expect(run.getSnapshot().context.events).toBe(before);
    run.send(batch(7));
    expect(seqs(run.getSnapshot().context.events)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(run.isOpen('loadEvents')).toBe(false);
    run.stop();
  });

  it('a gap seen during a read starts another read once it answers (the first may predate the missing rows)', async () => {
    const again = await live(1);
    again.send({ type: 'inspection.eventsStored', sessionId: 'ses-1', lastSeq: 3 });
    expect(again.pending.get('loadEvents')?.input).toEqual({ sessionId: 'ses-1', afterSeq: 1 });
    again.send(batch(6)); // 4 and 5 missing, heard during the read: held, and a read must follow
    await again.settle('loadEvents', ok([stored(2), stored(3)]));
    // 6 stays held (not shown past a hole); the next read starts after 3, so 4 and 5 come too.
    expect(seqs(again.getSnapshot().context.events)).toEqual([1, 2, 3]);
    expect(again.pending.get('loadEvents')?.input).toEqual({ sessionId: 'ses-1', afterSeq: 3 });
    await again.settle('loadEvents', ok([stored(4), stored(5), stored(6)]));
    expect(seqs(again.getSnapshot().context.events)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(again.getSnapshot().hasTag('live')).toBe(true);
    again.stop();
  });

  it("another session's events of the same source move what is heard: no read for numbers that were never this session's", async () => {
    const run = await live(1, 2);
    run.send({ type: 'inspection.eventsReceived', events: [stored(3, 'ses-2'), stored(4, 'ses-2')] });
    run.send(batch(5));
    expect(run.isOpen('loadEvents')).toBe(false);
    expect(seqs(run.getSnapshot().context.events)).toEqual([1, 2, 5]);
    run.stop();
  });

  it('events arriving while the session is first read are held and merged in seq order, each once', async () => {
    const run = runSession();
    run.send(batch(4, 5));
    run.send(batch(3)); // out of order
    await run.settle('loadEvents', ok([stored(1), stored(2), stored(3), stored(4)]));
    await flush();
    expect(seqs(run.getSnapshot().context.events)).toEqual([1, 2, 3, 4, 5]);
    expect(run.getSnapshot().context.held).toEqual([]);
    run.stop();
  });

  it("the picked actor's definition is sent to be drawn once it is read", async () => {
    const run = runSession({ sessionId: 'ses-1', actorId: 'x:0', position: null });
    await run.settle('loadEvents', ok([stored(1)]));
    expect(run.reports).toEqual([{ type: 'inspection.drawActor', actorId: 'x:0', config: { id: 't', initial: 'a' } }]);
    run.send({ type: 'inspection.scrub', position: 1 });
    expect(run.reports.at(-1)).toEqual({ type: 'inspection.lookChanged', actorId: 'x:0', position: 1 });
    run.stop();
  });
});

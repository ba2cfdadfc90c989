import { describe, expect, it } from 'vitest';
import { EMPTY_FOLD, foldOnward, LOG_CHUNK, type LiveFold } from '../../src/lib/inspection/live-fold.ts';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import { foldEvents } from '../../src/lib/inspection/replay.ts';

/**
 * The live fold (frame -> DOM): folding onward from the last fold gives exactly
 * what folding the whole list gives, folds again from the start when the list is not the old
 * one plus more, and keeps the identity of what the new events did not change.
 */

const DEFINITION = JSON.stringify({ id: 'toggle', initial: 'off', states: { off: {}, on: {} } });

function session(n: number, sessionId = 'ses-1'): StoredInspectionEvent[] {
  const out: StoredInspectionEvent[] = [
    {
      seq: 1,
      session_id: sessionId,
      received_at: '2026-11-24T00:00:00Z',
      body: { type: '@xstate.actor', sessionId: 'x:0', _version: '0.7.2', name: 'toggle', definition: DEFINITION },
    },
    {
      seq: 2,
      session_id: sessionId,
      received_at: '2026-11-24T00:00:00Z',
      body: { type: '@xstate.actor', sessionId: 'x:1', parentId: 'x:0', _version: '0.7.2', name: 'child' },
    },
  ];
  for (let i = 0; out.length < n; i++) {
    const seq = out.length + 1;
    out.push(
      i % 2 === 0
        ? {
            seq,
            session_id: sessionId,
            received_at: '2026-11-24T00:00:01Z',
            body: {
              type: '@xstate.event',
              sessionId: 'x:0',
              sourceId: 'x:1',
              _version: '0.7.2',
              event: { type: 'flip', i },
            },
          }
        : {
            seq,
            session_id: sessionId,
            received_at: '2026-11-24T00:00:01Z',
            body: {
              type: '@xstate.snapshot',
              sessionId: 'x:0',
              _version: '0.7.2',
              snapshot: { value: i % 4 === 1 ? 'on' : 'off', context: { i }, status: 'active' },
            },
          },
    );
  }
  return out;
}

const asView = (fold: LiveFold) => ({ actors: fold.actors, log: fold.logChunks.flat() });

describe('foldOnward', () => {
  it('folds event by event to exactly what folding the whole list gives', () => {
    const events = session(300);
    let fold = EMPTY_FOLD;
    for (let n = 1; n <= events.length; n++) {
      fold = foldOnward(fold, events.slice(0, n));
      expect(fold.count).toBe(n);
    }
    expect(asView(fold)).toEqual(foldEvents(events));
    expect(fold.definitions.get('x:0')).toBe(DEFINITION);
    expect(fold.logChunks.every((c, i) => c.length === LOG_CHUNK || i === fold.logChunks.length - 1)).toBe(true);
  });

  it('keeps untouched actors, full log chunks and the actor list when nothing changed them', () => {
    const events = session(2 + LOG_CHUNK * 4);
    const before = foldOnward(EMPTY_FOLD, events.slice(0, events.length - 2));
    // One more event: a log row only (x:1 sends to x:0).
    const withRow = foldOnward(before, events.slice(0, events.length - 1));
    expect(withRow.actors).toBe(before.actors);
    const full = before.logChunks.length - 1;
    for (let i = 0; i < full; i++) expect(withRow.logChunks[i]).toBe(before.logChunks[i]);
    // Then a snapshot of x:0: x:0 is a new object, x:1 the same one.
    const withSnapshot = foldOnward(withRow, events);
    expect(withSnapshot.actors).not.toBe(withRow.actors);
    expect(withSnapshot.actors[0]).not.toBe(withRow.actors[0]);
    expect(withSnapshot.actors[1]).toBe(withRow.actors[1]);
    // The earlier folds were not changed by the later ones.
    expect(asView(before)).toEqual(foldEvents(events.slice(0, events.length - 2)));
    expect(asView(withSnapshot)).toEqual(foldEvents(events));
  });

  it('folds from the start again for another session, events merged in before the end, or a scrub back', () => {
    const events = session(40);
    const all = foldOnward(EMPTY_FOLD, events);

    const other = session(10, 'ses-2');
    expect(asView(foldOnward(all, other))).toEqual(foldEvents(other));

    // Live events 31..40 arrived before the read of 21..30 finished: the merged list differs mid-way.
    const gapped = [...events.slice(0, 20), ...events.slice(30)];
    const partial = foldOnward(EMPTY_FOLD, gapped);
    expect(asView(foldOnward(partial, events))).toEqual(foldEvents(events));

    const back = foldOnward(all, events, 12);
    expect(back.count).toBe(12);
    expect(asView(back)).toEqual(foldEvents(events, 12));
    expect(asView(foldOnward(back, events))).toEqual(foldEvents(events));
  });

  it('hands back the same fold when nothing new is shown (paused while events arrive)', () => {
    const events = session(30);
    const at = foldOnward(EMPTY_FOLD, events.slice(0, 20), 10);
    expect(foldOnward(at, events, 10)).toBe(at);
    expect(foldOnward(EMPTY_FOLD, [])).toBe(EMPTY_FOLD);
  });
});

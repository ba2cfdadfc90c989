import { describe, expect, it } from 'vitest';
import {
  anchorOfEntry,
  entryKeyOf,
  historyLabel,
  stepOf,
  threadsByEntry,
  threadsByStep,
} from '../../../src/lib/comments/history-anchors.ts';
import type { EditEntry, EventEntry, SimulationEntry, TimelineEntry } from '../../../src/lib/timeline/index.ts';
import { thread } from '../../machines/comments.fakes.ts';

/** Threads on the history: the anchor an entry gives, the entry an anchor names, its words, and each entry's count. */

const AT = '2026-11-27T14:02:00Z';
const base = { at: AT, time: Date.parse(AT), text: '' };
const edit = (first: number, last: number, text: string): EditEntry => ({
  ...base,
  key: `edit:${first}`,
  kind: 'edit',
  person: 'u-ada',
  text,
  batchId: `b${first}`,
  firstSeq: first,
  lastSeq: last,
  changed: [],
});
const run: SimulationEntry = { ...base, key: 'sim:r1', kind: 'simulation', person: 'u-bo', simulationId: 'r1' };
const step = (seq: number, type: string): EventEntry => ({
  ...base,
  key: `ev:r1:${seq}`,
  kind: 'event',
  person: 'u-bo',
  text: `sent ${type}`,
  simulationId: 'r1',
  seq,
});
const entries: TimelineEntry[] = [
  edit(1, 1, 'added paying'),
  edit(2, 4, 'renamed paying'),
  run,
  step(1, 'PAY'),
  step(2, 'OK'),
];
const nameOf = (id: string | null) => ({ 'u-ada': 'Ada', 'u-bo': 'Bo' })[id ?? ''] ?? 'someone';

describe('threads on the history', () => {
  it('an edit gives the seq of its first op, a step its run and seq; other entries none', () => {
    expect(anchorOfEntry(entries[1]!)).toEqual({ kind: 'timeline', value: '2' });
    expect(anchorOfEntry(entries[4]!)).toEqual({ kind: 'step', value: 'r1:2' });
    expect(anchorOfEntry(run)).toBeNull();
  });

  it('an anchor names the entry holding it: a seq inside a batch names the batch; an unknown one none', () => {
    expect(entryKeyOf(entries, { kind: 'timeline', value: '3' })).toBe('edit:2');
    expect(entryKeyOf(entries, { kind: 'timeline', value: '9' })).toBeNull();
    expect(entryKeyOf(entries, { kind: 'step', value: 'r1:1' })).toBe('ev:r1:1');
    expect(entryKeyOf(entries, { kind: 'state', value: 's_paying' })).toBeNull();
    expect(stepOf('r1:2')).toEqual({ simulationId: 'r1', step: 2 });
    expect(stepOf('r1')).toBeNull();
  });

  it('says what it is in words, the bare number while the timeline has not read it', () => {
    expect(historyLabel(entries, { kind: 'timeline', value: '2' }, nameOf)).toBe('edit #2 by Ada: renamed paying');
    expect(historyLabel([], { kind: 'timeline', value: '2' }, nameOf)).toBe('edit #2');
    expect(historyLabel(entries, { kind: 'step', value: 'r1:1' }, nameOf)).toMatch(
      /^step 1 of the run Bo started at .+: sent PAY$/,
    );
    expect(historyLabel([], { kind: 'step', value: 'r1:1' }, nameOf)).toBe('step 1 of a run');
  });

  it('counts threads per entry, keeping the first', () => {
    const marks = threadsByEntry(
      [
        thread('t1', { anchor: { kind: 'timeline', value: '2' } }),
        thread('t2', { anchor: { kind: 'timeline', value: '4' } }),
        thread('t3', { anchor: { kind: 'step', value: 'r1:2' } }),
        thread('t4', { anchor: { kind: 'state', value: 's_paying' } }),
        thread('t5', { anchor: { kind: 'timeline', value: '99' } }),
      ],
      entries,
    );
    expect([...marks]).toEqual([
      ['edit:2', { count: 2, first: 't1' }],
      ['ev:r1:2', { count: 1, first: 't3' }],
    ]);
  });

  it('counts threads per step of one run, leaving other runs’ steps out', () => {
    const marks = threadsByStep(
      [
        thread('t1', { anchor: { kind: 'step', value: 'r1:2' } }),
        thread('t2', { anchor: { kind: 'step', value: 'r2:2' } }),
        thread('t3', { anchor: { kind: 'step', value: 'r1:2' } }),
        thread('t4', { anchor: { kind: 'timeline', value: '2' } }),
      ],
      'r1',
    );
    expect([...marks]).toEqual([[2, { count: 2, first: 't1' }]]);
  });
});

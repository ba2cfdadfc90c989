import { describe, expect, it } from 'vitest';
import { counterIds, importXState } from '../../../src/lib/model/index.ts';
import type { Op } from '../../../src/lib/model/op-types.ts';
import {
  appendOps,
  BARE_DEFINITION,
  definitionAt,
  definitionAtSeq,
  emptyHistory,
  eventEntry,
  filterEntries,
  insertEntries,
  joinedEntry,
  simulationEntry,
  windowOf,
  type AuthoredOp,
} from '../../../src/lib/timeline/index.ts';

const start = importXState(
  { id: 'door', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } },
  {
    ids: counterIds('t'),
  },
);
const idOf = (key: string) => Object.values(start.states).find((s) => s.key === key)!.id;

let clock = 0;
function batch(batchId: string, author: string, ops: Op[], from: number): AuthoredOp[] {
  return ops.map((op, i) => ({
    seq: from + i,
    batchId,
    author,
    at: new Date(Date.UTC(2026, 10, 24, 13, 0, clock++)).toISOString(),
    op,
  }));
}

function log(): AuthoredOp[] {
  const idle = idOf('idle');
  const root = start.root;
  return [
    ...batch('b1', 'ada', [{ type: 'machine.replace', definition: start }], 1),
    ...batch('b2', 'ada', [{ type: 'state.rename', id: idle, key: 'waiting' }], 2),
    ...batch(
      'b3',
      'bob',
      ['a', 'b', 'c'].map((k, i) => ({
        type: 'state.add',
        id: `n${i}`,
        parent: root,
        key: k,
        stateType: 'atomic',
        index: null,
      })),
      3,
    ),
    ...batch('b4', 'bob', [{ type: 'state.delete', id: 'n1' }], 6),
  ];
}

describe('edit history', () => {
  it('summarises each batch in words with its author', () => {
    const h = appendOps(emptyHistory(), log())!;
    expect(h.entries.map((e) => [e.person, e.text])).toEqual([
      ['ada', 'replaced the whole machine'],
      ['ada', 'renamed idle → waiting'],
      ['bob', 'added 3 states'],
      ['bob', 'deleted b'],
    ]);
    expect(h.entries[2]!.changed).toEqual(['n0', 'n1', 'n2']);
    expect(h.entries.map((e) => [e.firstSeq, e.lastSeq])).toEqual([
      [1, 1],
      [2, 2],
      [3, 5],
      [6, 6],
    ]);
  });

  it('tells a replace over a drawn machine (a restore) as what it changed', () => {
    const h = appendOps(emptyHistory(), log())!;
    const back = definitionAt(h, 1);
    const restored = appendOps(h, batch('b5', 'ada', [{ type: 'machine.replace', definition: back }], 7))!;
    const last = restored.entries[restored.entries.length - 1]!;
    expect(last.text).toBe('renamed waiting → idle, deleted 2 states');
    expect(last.changed).toEqual([idOf('idle')]);
    const same = appendOps(h, batch('b5', 'ada', [{ type: 'machine.replace', definition: h.head }], 7))!;
    expect(same.entries[same.entries.length - 1]!.text).toBe('replaced the whole machine');
  });

  it("gives a named version's definition from the log read from its start, in any order; null past its end or over a gap", () => {
    const ops = log();
    const whole = appendOps(emptyHistory(), ops)!;
    expect(definitionAtSeq([...ops].reverse(), 2)).toEqual(definitionAt(whole, 2));
    expect(definitionAtSeq(ops, 0)).toEqual(BARE_DEFINITION);
    expect(definitionAtSeq(ops, ops.length)).toEqual(whole.head);
    expect(definitionAtSeq(ops, ops.length + 1)).toBeNull();
    expect(definitionAtSeq(ops.slice(1), 3)).toBeNull();
  });

  it('gives the definition at every version, the same folded in one go or in pieces', () => {
    const ops = log();
    const whole = appendOps(emptyHistory(), ops)!;
    let pieces = emptyHistory();
    for (const op of ops) pieces = appendOps(pieces, [op])!;
    expect(pieces.entries).toEqual(whole.entries);
    expect(definitionAt(whole, 0)).toEqual(BARE_DEFINITION);
    expect(definitionAt(whole, 1)).toEqual(start);
    expect(definitionAt(whole, 2).states[idOf('idle')]!.key).toBe('waiting');
    expect(Object.keys(definitionAt(whole, 5).states)).toHaveLength(Object.keys(start.states).length + 3);
    expect(definitionAt(whole, 6)).toEqual(whole.head);
    expect(definitionAt(pieces, 4)).toEqual(definitionAt(whole, 4));
  });

  it('ignores repeats and reports a gap', () => {
    const ops = log();
    const h = appendOps(emptyHistory(), ops.slice(0, 3))!;
    expect(appendOps(h, ops.slice(0, 3))).toBe(h);
    expect(appendOps(h, ops.slice(4))).toBeNull();
  });
});

describe('entries', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 14, 0, s)).toISOString();
  const sim = simulationEntry({ id: 's1', createdBy: 'ada', at: at(1), machineVersion: 4, forkedFrom: null });
  const ev1 = eventEntry({ simulationId: 's1', seq: 1, sender: 'bob', kind: 'event', type: 'GO', at: at(2) });
  const ev2 = eventEntry({ simulationId: 's1', seq: 2, sender: 'ada', kind: 'time', type: null, at: at(3) });
  const join = joinedEntry('cy', at(0), 1);

  it('keeps time order whatever the arrival order, and drops repeats', () => {
    const a = insertEntries(insertEntries([], [ev2, sim]), [ev1, join, ev1]);
    expect(a.map((e) => e.key)).toEqual([join.key, sim.key, ev1.key, ev2.key]);
    expect(a.map((e) => e.text)).toEqual(['joined', 'started a simulation (version 4)', 'sent GO', 'advanced time']);
    expect(insertEntries(a, [sim])).toBe(a);
  });

  it('filters by kind and by person', () => {
    const all = insertEntries([], [sim, ev1, ev2, join]);
    expect(filterEntries(all, { kinds: ['event'], person: null }).map((e) => e.key)).toEqual([ev1.key, ev2.key]);
    expect(filterEntries(all, { kinds: [], person: 'ada' }).map((e) => e.key)).toEqual([sim.key, ev2.key]);
    expect(filterEntries(all, { kinds: ['joined', 'simulation'], person: 'ada' }).map((e) => e.key)).toEqual([sim.key]);
  });

  it('windows a long list to the rows in view plus overscan', () => {
    expect(windowOf(10_000, 28, 0, 280, 5)).toEqual({ start: 0, end: 16, offset: 0 });
    expect(windowOf(10_000, 28, 28 * 5000, 280, 5)).toEqual({ start: 4995, end: 5016, offset: 4995 * 28 });
    expect(windowOf(10_000, 28, 28 * 20_000, 280, 5).end).toBe(10_000);
    expect(windowOf(0, 28, 0, 280)).toEqual({ start: 0, end: 0, offset: 0 });
  });
});

import { describe, expect, it } from 'vitest';
import { committed, conflicted, createDoc, edit, receive, restoreDoc, snapshotOf, takeBatch } from '../../../src/lib/collab/doc.ts';
import { emptyHistory, recordEdit, redo, undo } from '../../../src/lib/collab/history.ts';
import type { CommittedOp, DocState } from '../../../src/lib/collab/types.ts';
import { toyModel, type ToyDoc, type ToyOp } from './toy-model.ts';

/** The client's commit protocol, transition by transition (src/lib/collab/doc.ts). */

const ids = () => {
  let n = 0;
  return () => `b${++n}`;
};

function edited(state: DocState<ToyDoc, ToyOp>, ...ops: ToyOp[]) {
  const result = edit(toyModel, state, ops);
  if (!result.ok) throw new Error('edit refused');
  return result.state;
}

const theirs = (seq: number, op: ToyOp, batchId = `their-${seq}`): CommittedOp<ToyOp> => ({ seq, batchId, clientId: 'them', op });

describe('edit', () => {
  it('applies at once and queues', () => {
    const s = edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' });
    expect(s.local).toEqual({ a: '1' });
    expect(s.confirmed).toEqual({});
    expect(s.pending).toEqual([{ t: 'add', id: 'a', v: '1' }]);
  });

  it('refuses a whole edit when one op does not apply', () => {
    const s = createDoc<ToyDoc, ToyOp>({}, 0);
    const result = edit(toyModel, s, [{ t: 'add', id: 'a', v: '1' }, { t: 'set', id: 'zz', v: '2' }]);
    expect(result.ok).toBe(false);
  });
});

describe('commit', () => {
  it('a batch keeps its id until answered, so a retry is the same batch', () => {
    const next = ids();
    const s = edited(createDoc({}, 3), { t: 'add', id: 'a', v: '1' });
    const first = takeBatch(toyModel, s, next);
    expect(first?.batch).toMatchObject({ batchId: 'b1', base: 3, doc: { a: '1' } });
    const again = takeBatch(toyModel, edited(first!.state, { t: 'add', id: 'b', v: '2' }), next);
    expect(again?.batch.batchId).toBe('b1');
    expect(again?.batch.ops).toHaveLength(1);
  });

  it('a receipt moves confirmed to the batch; later echoes are dropped as known', () => {
    const taken = takeBatch(toyModel, edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' }), ids())!;
    const done = committed(toyModel, taken.state, 'b1', { firstSeq: 1, lastSeq: 1, version: 1, duplicate: false });
    expect(done.gap).toBe(false);
    expect(done.state).toMatchObject({ version: 1, inflight: null, confirmed: { a: '1' }, local: { a: '1' } });
    const echoed = receive(toyModel, done.state, [{ seq: 1, batchId: 'b1', clientId: 'me', op: { t: 'add', id: 'a', v: '1' } }]);
    expect(echoed.state).toEqual(done.state);
  });

  it('an echo before the receipt confirms the batch by its id; the receipt is then a no-op', () => {
    const taken = takeBatch(toyModel, edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' }, { t: 'set', id: 'a', v: '2' }), ids())!;
    const echo = receive(toyModel, taken.state, taken.batch.ops.map((op, i) => ({ seq: i + 1, batchId: 'b1', clientId: 'me', op })));
    expect(echo.state).toMatchObject({ version: 2, inflight: null, confirmed: { a: '2' } });
    expect(committed(toyModel, echo.state, 'b1', { firstSeq: 1, lastSeq: 2, version: 2, duplicate: false }).state).toEqual(echo.state);
  });

  it('a duplicate receipt reporting later ops asks for a resync', () => {
    const taken = takeBatch(toyModel, edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' }), ids())!;
    expect(committed(toyModel, taken.state, 'b1', { firstSeq: 1, lastSeq: 1, version: 4, duplicate: true }).gap).toBe(true);
  });
});

describe('conflict and rebase', () => {
  it('a refused batch rejoins the front of the queue; the log rebases it', () => {
    let s = edited(createDoc({}, 0), { t: 'add', id: 'a', v: 'mine' }, { t: 'add', id: 'b', v: 'mine' });
    s = takeBatch(toyModel, s, ids())!.state;
    s = edited(s, { t: 'add', id: 'c', v: 'later' });
    s = conflicted(s, 'b1');
    expect(s.pending.map((op) => op.id)).toEqual(['a', 'b', 'c']);
    const got = receive(toyModel, s, [theirs(1, { t: 'add', id: 'a', v: 'theirs' })]);
    expect(got.dropped).toEqual([{ t: 'add', id: 'a', v: 'mine' }]);
    expect(got.state.local).toEqual({ a: 'theirs', b: 'mine', c: 'later' });
    expect(got.state.confirmed).toEqual({ a: 'theirs' });
  });

  it('someone else\'s op at base+1 proves the inflight batch was refused', () => {
    let s = createDoc<ToyDoc, ToyOp>({ x: '0' }, 0);
    s = takeBatch(toyModel, edited(s, { t: 'set', id: 'x', v: 'mine' }), ids())!.state;
    const got = receive(toyModel, s, [theirs(1, { t: 'del', id: 'x' })]);
    expect(got.state.inflight).toBeNull();
    expect(got.state.pending).toEqual([]);
    expect(got.dropped).toEqual([{ t: 'set', id: 'x', v: 'mine' }]);
    expect(got.state.local).toEqual({});
  });

  it('a seq beyond the next is a gap: nothing after it is applied', () => {
    const got = receive(toyModel, createDoc<ToyDoc, ToyOp>({}, 0), [theirs(1, { t: 'add', id: 'a', v: '1' }), theirs(3, { t: 'add', id: 'c', v: '3' })]);
    expect(got.gap).toBe(true);
    expect(got.state.version).toBe(1);
    expect(got.state.local).toEqual({ a: '1' });
  });

  it('ops arriving out of order and twice are applied once, in seq order', () => {
    const got = receive(toyModel, createDoc<ToyDoc, ToyOp>({}, 0), [theirs(2, { t: 'set', id: 'a', v: '2' }), theirs(1, { t: 'add', id: 'a', v: '1' }), theirs(1, { t: 'add', id: 'a', v: '1' })]);
    expect(got).toMatchObject({ gap: false, state: { version: 2, local: { a: '2' } } });
  });

  it('a committed op that does not apply is skipped by everyone alike and reported', () => {
    const got = receive(toyModel, createDoc<ToyDoc, ToyOp>({}, 0), [theirs(1, { t: 'del', id: 'nope' })]);
    expect(got.invalid).toHaveLength(1);
    expect(got.state.version).toBe(1);
  });
});

describe('the stored queue', () => {
  it('survives a JSON round trip and rebuilds what the person sees', () => {
    let s = edited(createDoc({ a: '0' }, 2), { t: 'set', id: 'a', v: '1' });
    s = takeBatch(toyModel, s, ids())!.state;
    s = edited(s, { t: 'add', id: 'b', v: '2' });
    const restored = restoreDoc(toyModel, JSON.parse(JSON.stringify(snapshotOf(s))) as ReturnType<typeof snapshotOf<ToyDoc, ToyOp>>);
    expect(restored.state).toEqual(s);
    expect(restored.dropped).toEqual([]);
  });
});

describe('undo and redo', () => {
  it('undo applies the inverse as a new edit; redo applies it again', () => {
    const before: ToyDoc = { a: '0' };
    const ops: ToyOp[] = [{ t: 'set', id: 'a', v: '1' }, { t: 'add', id: 'b', v: '2' }];
    const history = recordEdit(toyModel, emptyHistory<ToyOp>(), before, ops);
    const after = { a: '1', b: '2' };
    const undone = undo(toyModel, history, after)!;
    expect(undone.doc).toEqual(before);
    expect(undone.ops).toEqual([{ t: 'del', id: 'b' }, { t: 'set', id: 'a', v: '0' }]);
    const redone = redo(toyModel, undone.history, undone.doc)!;
    expect(redone.doc).toEqual(after);
    expect(redone.history.redo).toEqual([]);
    expect(undo(toyModel, redone.history, redone.doc)?.doc).toEqual(before);
  });

  it('undo skips what others removed since, and says so', () => {
    const history = recordEdit(toyModel, emptyHistory<ToyOp>(), {}, [{ t: 'add', id: 'a', v: '1' }, { t: 'add', id: 'b', v: '1' }]);
    const undone = undo(toyModel, history, { b: '1' })!;
    expect(undone.doc).toEqual({});
    expect(undone.dropped).toEqual([{ t: 'del', id: 'a' }]);
  });

  it('nothing to undo or redo is null; a new edit clears redo', () => {
    expect(undo(toyModel, emptyHistory<ToyOp>(), {})).toBeNull();
    expect(redo(toyModel, emptyHistory<ToyOp>(), {})).toBeNull();
    const h = recordEdit(toyModel, { undo: [], redo: [[{ t: 'del', id: 'x' }]] }, {}, [{ t: 'add', id: 'a', v: '1' }]);
    expect(h.redo).toEqual([]);
  });
});

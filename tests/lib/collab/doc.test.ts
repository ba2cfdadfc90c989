import { describe, expect, it } from 'vitest';
import {
  committed,
  createDoc,
  edit,
  forget,
  isShownRemote,
  MAX_BATCH_BYTES,
  receive,
  seen,
  restoreDoc,
  snapshotOf,
  takeBatch,
  tooBig,
} from '../../../src/lib/collab/doc.ts';
import { emptyHistory, recordEdit, redo, undo } from '../../../src/lib/collab/history.ts';
import type { CommittedOp, DocState, RemoteBatch } from '../../../src/lib/collab/types.ts';
import { toyModel, type ToyDoc, type ToyOp } from './toy-model.ts';

/** The client's append protocol, transition by transition (src/lib/collab/doc.ts). */

const ids = () => {
  let n = 0;
  return () => `b${++n}`;
};

function edited(state: DocState<ToyDoc, ToyOp>, ...ops: ToyOp[]) {
  const result = edit(toyModel, state, ops);
  if (!result.ok) throw new Error('edit refused');
  return result.state;
}

const theirs = (seq: number, op: ToyOp, batchId = `their-${seq}`): CommittedOp<ToyOp> => ({
  seq,
  batchId,
  clientId: 'them',
  op,
});

describe('edit', () => {
  it('applies at once and queues', () => {
    const s = edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' });
    expect(s.local).toEqual({ a: '1' });
    expect(s.confirmed).toEqual({});
    expect(s.pending).toEqual([{ t: 'add', id: 'a', v: '1' }]);
  });

  it('refuses a whole edit when one op does not apply', () => {
    const s = createDoc<ToyDoc, ToyOp>({}, 0);
    const result = edit(toyModel, s, [
      { t: 'add', id: 'a', v: '1' },
      { t: 'set', id: 'zz', v: '2' },
    ]);
    expect(result.ok).toBe(false);
  });
});

describe('append', () => {
  it('a batch keeps its id until answered, so a retry is the same batch; it carries only ops', () => {
    const next = ids();
    const s = edited(createDoc({}, 3), { t: 'add', id: 'a', v: '1' });
    const first = takeBatch(s, next);
    expect(first?.batch).toEqual({ batchId: 'b1', ops: [{ t: 'add', id: 'a', v: '1' }], acked: null });
    const again = takeBatch(edited(first!.state, { t: 'add', id: 'b', v: '2' }), next);
    expect(again?.batch.batchId).toBe('b1');
    expect(again?.batch.ops).toHaveLength(1);
  });

  it('a receipt right after our version confirms the batch; later echoes are known', () => {
    const taken = takeBatch(edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' }), ids())!;
    const done = committed(toyModel, taken.state, 'b1', { firstSeq: 1, lastSeq: 1, version: 1, duplicate: false });
    expect(done.gap).toBe(false);
    expect(done.state).toMatchObject({ version: 1, inflight: null, confirmed: { a: '1' }, local: { a: '1' } });
    const echoed = receive(toyModel, done.state, [
      { seq: 1, batchId: 'b1', clientId: 'me', op: { t: 'add', id: 'a', v: '1' } },
    ]);
    expect(echoed.state).toEqual(done.state);
  });

  it('appended behind ops we have not seen: never refused; acknowledged, and the log is read', () => {
    const taken = takeBatch(edited(createDoc({}, 0), { t: 'add', id: 'a', v: 'mine' }), ids())!;
    const done = committed(toyModel, taken.state, 'b1', { firstSeq: 3, lastSeq: 3, version: 3, duplicate: false });
    expect(done.gap).toBe(true);
    expect(done.state.inflight?.acked).toEqual({ firstSeq: 3, lastSeq: 3 });
    expect(takeBatch(done.state, ids())).toBeNull();
    const log = [
      theirs(1, { t: 'add', id: 'x', v: '1' }),
      theirs(2, { t: 'add', id: 'y', v: '2' }),
      { seq: 3, batchId: 'b1', clientId: 'me', op: { t: 'add', id: 'a', v: 'mine' } as ToyOp },
    ];
    const got = receive(toyModel, done.state, log);
    expect(got.state).toMatchObject({
      version: 3,
      inflight: null,
      pending: [],
      confirmed: { x: '1', y: '2', a: 'mine' },
      local: { x: '1', y: '2', a: 'mine' },
    });
  });

  it("after a receipt gap the log read applies others' ops once; their stream copy arriving later is known", () => {
    const taken = takeBatch(edited(createDoc({}, 0), { t: 'add', id: 'a', v: 'mine' }), ids())!;
    const done = committed(toyModel, taken.state, 'b1', { firstSeq: 2, lastSeq: 2, version: 2, duplicate: false });
    expect(done.gap).toBe(true);
    const x = theirs(1, { t: 'add', id: 'x', v: '1' });
    const read = receive(toyModel, done.state, [x, { seq: 2, batchId: 'b1', clientId: 'me', op: taken.batch.ops[0]! }]);
    expect(read.gap).toBe(false);
    expect(read.state).toMatchObject({ version: 2, inflight: null, local: { x: '1', a: 'mine' } });
    const late = receive(toyModel, read.state, [x]);
    expect(late.gap).toBe(false);
    expect(late.state).toEqual(read.state);
  });

  it('an echo before the receipt confirms the batch by its id; the receipt is then a no-op', () => {
    const taken = takeBatch(
      edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' }, { t: 'set', id: 'a', v: '2' }),
      ids(),
    )!;
    const echo = receive(
      toyModel,
      taken.state,
      taken.batch.ops.map((op, i) => ({ seq: i + 1, batchId: 'b1', clientId: 'me', op })),
    );
    expect(echo.state).toMatchObject({ version: 2, inflight: null, confirmed: { a: '2' } });
    expect(
      committed(toyModel, echo.state, 'b1', { firstSeq: 1, lastSeq: 2, version: 2, duplicate: false }).state,
    ).toEqual(echo.state);
  });

  it('a duplicate receipt reporting later ops asks for a resync', () => {
    const taken = takeBatch(edited(createDoc({}, 0), { t: 'add', id: 'a', v: '1' }), ids())!;
    expect(committed(toyModel, taken.state, 'b1', { firstSeq: 1, lastSeq: 1, version: 4, duplicate: true }).gap).toBe(
      true,
    );
  });
});

describe('order and rebase', () => {
  it("others' ops land under our unacknowledged batch and queue; what we see is rebased on top", () => {
    let s = edited(createDoc({}, 0), { t: 'add', id: 'a', v: 'mine' });
    s = takeBatch(s, ids())!.state;
    s = edited(s, { t: 'add', id: 'c', v: 'later' });
    const got = receive(toyModel, s, [theirs(1, { t: 'add', id: 'b', v: 'theirs' })]);
    expect(got.state.confirmed).toEqual({ b: 'theirs' });
    expect(got.state.inflight?.ops).toEqual([{ t: 'add', id: 'a', v: 'mine' }]);
    expect(got.state.local).toEqual({ a: 'mine', b: 'theirs', c: 'later' });
  });

  it('our logged op that no longer applies is a no-op for everyone, and its author is told', () => {
    let s = createDoc<ToyDoc, ToyOp>({ x: '0' }, 0);
    s = takeBatch(edited(s, { t: 'set', id: 'x', v: 'mine' }), ids())!.state;
    const got = receive(toyModel, s, [
      theirs(1, { t: 'del', id: 'x' }),
      { seq: 2, batchId: 'b1', clientId: 'me', op: { t: 'set', id: 'x', v: 'mine' } },
    ]);
    expect(got.state).toMatchObject({ version: 2, inflight: null, pending: [], local: {}, confirmed: {} });
    expect(got.dropped.map((d) => d.op)).toEqual([{ t: 'set', id: 'x', v: 'mine' }]);
    expect(got.dropped[0]?.reason).toMatch(/no x/);
    expect(got.skipped.map((e) => e.seq)).toEqual([2]);
  });

  it('a queued op that others made a no-op leaves the queue, reported', () => {
    const s = edited(createDoc<ToyDoc, ToyOp>({ x: '0' }, 0), { t: 'set', id: 'x', v: 'mine' });
    const got = receive(toyModel, s, [theirs(1, { t: 'del', id: 'x' })]);
    expect(got.state.pending).toEqual([]);
    expect(got.dropped.map((d) => d.op)).toEqual([{ t: 'set', id: 'x', v: 'mine' }]);
  });

  it('a seq beyond the next is a gap: nothing after it is applied', () => {
    const got = receive(toyModel, createDoc<ToyDoc, ToyOp>({}, 0), [
      theirs(1, { t: 'add', id: 'a', v: '1' }),
      theirs(3, { t: 'add', id: 'c', v: '3' }),
    ]);
    expect(got.gap).toBe(true);
    expect(got.state.version).toBe(1);
    expect(got.state.local).toEqual({ a: '1' });
  });

  it('ops arriving out of order and twice are applied once, in seq order', () => {
    const got = receive(toyModel, createDoc<ToyDoc, ToyOp>({}, 0), [
      theirs(2, { t: 'set', id: 'a', v: '2' }),
      theirs(1, { t: 'add', id: 'a', v: '1' }),
      theirs(1, { t: 'add', id: 'a', v: '1' }),
    ]);
    expect(got).toMatchObject({ gap: false, state: { version: 2, local: { a: '2' } } });
  });

  it('a logged op that does not apply is skipped by everyone alike', () => {
    const got = receive(toyModel, createDoc<ToyDoc, ToyOp>({}, 0), [theirs(1, { t: 'del', id: 'nope' })]);
    expect(got.skipped).toHaveLength(1);
    expect(got.dropped).toEqual([]);
    expect(got.state.version).toBe(1);
  });
});

describe('limits', () => {
  it('an edit over the byte limit is refused with its size and the limit, in words', () => {
    expect(tooBig([{ t: 'add', id: 'a', v: 'x'.repeat(100) }])).toBeNull();
    expect(tooBig([{ t: 'add', id: 'a', v: 'x'.repeat(MAX_BATCH_BYTES) }])).toMatch(
      /too big to save: 512\.0 KB|too big to save: 513 KB/,
    );
    expect(tooBig([{ t: 'add', id: 'a', v: 'x'.repeat(1024 * 1024) }])).toMatch(
      /too big to save: 1\.0 MB, and one edit can be at most 512 KB/,
    );
  });

  it('a batch stops before the byte limit; the rest waits for the next one', () => {
    const big = 'x'.repeat(200 * 1024);
    let s = createDoc<ToyDoc, ToyOp>({}, 0);
    for (const id of ['a', 'b', 'c', 'd']) s = edited(s, { t: 'add', id, v: big });
    const taken = takeBatch(s, ids())!;
    expect(taken.batch.ops.map((op) => op.id)).toEqual(['a', 'b']);
    expect(taken.state.pending.map((op) => op.id)).toEqual(['c', 'd']);
  });
});

describe('the stored queue', () => {
  it('survives a JSON round trip and rebuilds what the person sees', () => {
    let s = edited(createDoc({ a: '0' }, 2), { t: 'set', id: 'a', v: '1' });
    s = takeBatch(s, ids())!.state;
    s = edited(s, { t: 'add', id: 'b', v: '2' });
    const restored = restoreDoc(
      toyModel,
      JSON.parse(JSON.stringify(snapshotOf(s))) as ReturnType<typeof snapshotOf<ToyDoc, ToyOp>>,
    );
    expect(restored.state).toEqual(s);
    expect(restored.dropped).toEqual([]);
  });
});

describe('undo and redo', () => {
  it('undo applies the inverse as a new edit; redo applies it again', () => {
    const before: ToyDoc = { a: '0' };
    const ops: ToyOp[] = [
      { t: 'set', id: 'a', v: '1' },
      { t: 'add', id: 'b', v: '2' },
    ];
    const history = recordEdit(toyModel, emptyHistory<ToyOp>(), before, ops);
    const after = { a: '1', b: '2' };
    const undone = undo(toyModel, history, after)!;
    expect(undone.doc).toEqual(before);
    expect(undone.ops).toEqual([
      { t: 'del', id: 'b' },
      { t: 'set', id: 'a', v: '0' },
    ]);
    const redone = redo(toyModel, undone.history, undone.doc)!;
    expect(redone.doc).toEqual(after);
    expect(redone.history.redo).toEqual([]);
    expect(undo(toyModel, redone.history, redone.doc)?.doc).toEqual(before);
  });

  it('undo skips what others removed since, and says so', () => {
    const history = recordEdit(toyModel, emptyHistory<ToyOp>(), {}, [
      { t: 'add', id: 'a', v: '1' },
      { t: 'add', id: 'b', v: '1' },
    ]);
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

describe("others' batches before the log confirms them", () => {
  const batch = (batchId: string, ...ops: ToyOp[]): RemoteBatch<ToyOp> => ({
    batchId,
    clientId: 'them',
    userId: 'u-them',
    ops,
  });

  it('shows a batch at once, under our own unsent edits, without touching confirmed or the queue', () => {
    const mine = edited(createDoc({}, 0), { t: 'add', id: 'm', v: '1' });
    const s = seen(toyModel, mine, batch('x', { t: 'add', id: 'a', v: 'theirs' }));
    expect(s.local).toEqual({ a: 'theirs', m: '1' });
    expect(s.confirmed).toEqual({});
    expect(s.version).toBe(0);
    expect(s.pending).toEqual(mine.pending);
    expect(isShownRemote(s, 'x')).toBe(true);
    // A second copy (a duplicate on the wire) changes nothing.
    expect(seen(toyModel, s, batch('x', { t: 'add', id: 'a', v: 'theirs' }))).toBe(s);
  });

  it('leaves when the log confirms it: the view is the same, now confirmed', () => {
    const s = seen(toyModel, createDoc({}, 0), batch('x', { t: 'add', id: 'a', v: 'theirs' }));
    const got = receive(toyModel, s, [theirs(1, { t: 'add', id: 'a', v: 'theirs' }, 'x')]);
    expect(got.state.local).toEqual({ a: 'theirs' });
    expect(got.state.confirmed).toEqual({ a: 'theirs' });
    expect(got.state.remote).toEqual([]);
    expect(got.state.recent).toEqual(['x']);
  });

  it('ignores a copy that arrives after the log confirmed it', () => {
    const got = receive(toyModel, createDoc({}, 0), [theirs(1, { t: 'add', id: 'a', v: 'theirs' }, 'x')]);
    const late = seen(toyModel, got.state, batch('x', { t: 'add', id: 'a', v: 'theirs' }));
    expect(late).toBe(got.state);
    expect(late.local).toEqual({ a: 'theirs' });
  });

  it('rolls back a batch never confirmed, and drops (and reports) an edit of ours that needed it', () => {
    const s = seen(toyModel, createDoc({ k: 'kept' }, 0), batch('x', { t: 'add', id: 'a', v: 'theirs' }));
    const mine = edited(s, { t: 'set', id: 'a', v: 'mine' }, { t: 'set', id: 'k', v: 'mine too' });
    expect(mine.local).toEqual({ a: 'mine', k: 'mine too' });
    const gone = forget(toyModel, mine, 'x');
    expect(gone.state.local).toEqual({ k: 'mine too' });
    expect(gone.state.pending).toEqual([{ t: 'set', id: 'k', v: 'mine too' }]);
    expect(gone.dropped.map((d) => d.op)).toEqual([{ t: 'set', id: 'a', v: 'mine' }]);
    expect(isShownRemote(gone.state, 'x')).toBe(false);
    // Forgetting what is not shown changes nothing.
    expect(forget(toyModel, gone.state, 'x').state).toBe(gone.state);
  });

  it('shows batches in the order they arrive; the log decides the final order', () => {
    let s = createDoc<ToyDoc, ToyOp>({}, 0);
    s = seen(toyModel, s, batch('y', { t: 'set', id: 'a', v: 'second' }));
    s = seen(toyModel, s, batch('x', { t: 'add', id: 'a', v: 'first' }));
    // y arrived first but does not apply before x: it shows as a no-op until the log orders them.
    expect(s.local).toEqual({ a: 'first' });
    const got = receive(toyModel, s, [
      theirs(1, { t: 'add', id: 'a', v: 'first' }, 'x'),
      theirs(2, { t: 'set', id: 'a', v: 'second' }, 'y'),
    ]);
    expect(got.state.local).toEqual({ a: 'second' });
    expect(got.state.remote).toEqual([]);
  });

  it('keeps our queue whole while a batch is shown, even an edit its ops hide', () => {
    const mine = edited(createDoc({ a: '0' }, 0), { t: 'set', id: 'a', v: 'mine' });
    const s = seen(toyModel, mine, batch('x', { t: 'del', id: 'a' }));
    expect(s.local).toEqual({});
    expect(s.pending).toEqual([{ t: 'set', id: 'a', v: 'mine' }]);
    // It is rolled back: our edit shows again.
    expect(forget(toyModel, s, 'x').state.local).toEqual({ a: 'mine' });
  });
});

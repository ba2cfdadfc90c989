import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDoc, edit, receive, seen } from '../../../src/lib/collab/doc.ts';
import type { CommittedOp, DocState, OpModel, RemoteBatch } from '../../../src/lib/collab/types.ts';
import { toyModel, toyOp, type ToyDoc, type ToyOp } from './toy-model.ts';

/**
 * Others' batches shown ahead of the log (`seen`) and then confirmed by it (`receive`):
 * whatever was shown, in whatever order, and however the log's copies arrive, the
 * document confirms exactly what a document that never saw them ahead confirms (the same
 * ops skipped, the same gaps), and at the end shows the log plus its own queue. The model's one-step
 * `applyAll` is used or not.
 */

const withApplyAll: OpModel<ToyDoc, ToyOp> = {
  ...toyModel,
  applyAll: (doc, ops) => ops.reduce((d, op) => toyModel.apply(d, op), doc),
};

const opArb = fc.array(fc.nat(20), { minLength: 3, maxLength: 3 }).map((pick) => toyOp({}, pick));

interface Scenario {
  batches: ToyOp[][];
  shownAt: number[];
  chunks: number[];
  mine: ToyOp[];
  start: Record<string, string>;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  // Others' batches, in the order the log appends them.
  batches: fc.array(fc.array(opArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
  // Per batch: a random key ordering when it is shown ahead (or never: -1).
  shownAt: fc.array(fc.integer({ min: -1, max: 20 }), { minLength: 8, maxLength: 8 }),
  // How many log ops each delivery carries, and whether it comes twice.
  chunks: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 12, maxLength: 12 }),
  // Our own edits, made between steps.
  mine: fc.array(opArb, { maxLength: 4 }),
  start: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('x', 'y')),
});

function run(model: OpModel<ToyDoc, ToyOp>, scenario: Scenario) {
  const batches: RemoteBatch<ToyOp>[] = scenario.batches.map((ops, i) => ({
    batchId: `b${i}`,
    clientId: 'them',
    userId: 'u-them',
    ops,
  }));
  const log: CommittedOp<ToyOp>[] = batches
    .flatMap((b) => b.ops.map((op) => ({ batchId: b.batchId, clientId: 'them', op })))
    .map((entry, i) => ({ ...entry, seq: i + 1 }));
  const order = batches
    .map((b, i) => ({ b, at: scenario.shownAt[i] ?? -1 }))
    .filter((x) => x.at >= 0)
    .sort((x, y) => x.at - y.at)
    .map((x) => x.b);

  let ahead: DocState<ToyDoc, ToyOp> = createDoc(scenario.start, 0);
  let plain: DocState<ToyDoc, ToyOp> = createDoc(scenario.start, 0);
  const mine = [...scenario.mine];
  const makeMine = () => {
    const op = mine.shift();
    if (!op) return;
    const a = edit(model, ahead, [op]);
    const p = edit(model, plain, [op]);
    if (a.ok) ahead = a.state;
    if (p.ok) plain = p.state;
  };
  let shown = 0;
  let delivered = 0;
  for (let step = 0; delivered < log.length; step++) {
    // Some batches are shown ahead (in their own order, maybe after the log confirmed them) ...
    while (shown < order.length && shown <= step) ahead = seen(model, ahead, order[shown++]!);
    makeMine();
    // ... then the log's next ops arrive, sometimes twice.
    const size = scenario.chunks[step % scenario.chunks.length]!;
    const chunk = log.slice(delivered, delivered + size);
    delivered += chunk.length;
    for (const copy of size === 4 ? [chunk, chunk] : [chunk]) {
      const a = receive(model, ahead, copy);
      const p = receive(model, plain, copy);
      expect(a.state.confirmed).toEqual(p.state.confirmed);
      expect(a.state.version).toBe(p.state.version);
      expect(a.gap).toBe(p.gap);
      expect(a.skipped).toEqual(p.skipped);
      ahead = a.state;
      plain = p.state;
    }
  }
  expect(ahead.version).toBe(log.length);
  // Every shown batch the log confirmed has left; what this person sees is the log plus their own queue.
  expect(ahead.remote ?? []).toEqual([]);
  const queued = ahead.pending.reduce((doc, op) => {
    try {
      return model.apply(doc, op);
    } catch {
      return doc;
    }
  }, ahead.confirmed);
  expect(ahead.local).toEqual(queued);
}

describe('batches shown ahead, then confirmed by the log', () => {
  it('confirm what a document that never saw them ahead confirms, and end showing the log plus our queue', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        run(toyModel, scenario);
        run(withApplyAll, scenario);
      }),
      { numRuns: 400 },
    );
  });
});

describe('the log confirming batches in the order shown', () => {
  it('applies nothing again: the document worked out when they were shown is the confirmed one', () => {
    let applied = 0;
    const counting: OpModel<ToyDoc, ToyOp> = {
      ...toyModel,
      apply: (doc, op) => {
        applied++;
        return toyModel.apply(doc, op);
      },
    };
    const x: RemoteBatch<ToyOp> = { batchId: 'x', clientId: 'them', userId: 'u', ops: [{ t: 'add', id: 'a', v: '1' }] };
    const y: RemoteBatch<ToyOp> = { batchId: 'y', clientId: 'them', userId: 'u', ops: [{ t: 'set', id: 'a', v: '2' }] };
    let s = seen(counting, createDoc<ToyDoc, ToyOp>({}, 0), x);
    s = seen(counting, s, y);
    const before = applied;
    const first = receive(counting, s, [{ seq: 1, batchId: 'x', clientId: 'them', op: x.ops[0]! }]);
    const second = receive(counting, first.state, [{ seq: 2, batchId: 'y', clientId: 'them', op: y.ops[0]! }]);
    expect(applied).toBe(before);
    expect(first.state.confirmed).toEqual({ a: '1' });
    expect(second.state.confirmed).toEqual({ a: '2' });
    expect(second.state.local).toBe(s.local);
    expect(second.state.remote).toEqual([]);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEach } from '../../../src/lib/collab/rebase.ts';
import { createWorld, settle, step, stepArb } from './simulate.ts';
import { toyModel, toyOp, type ToyDoc, type ToyOp } from './toy-model.ts';

/**
 * Issue 5, "Done when": random op sequences from several clients, applied through
 * commit, conflict and rebase in any interleaving, converge to one definition. Here with
 * a document whose ops collide often (tests/lib/collab/toy-model.ts); the statechart
 * model runs through the same simulation in model-convergence.test.ts.
 */

describe('collab convergence (toy document)', () => {
  it('every client ends with the server\'s definition, which is the fold of the log', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }).chain((n) => fc.tuple(fc.constant(n), fc.array(stepArb(n), { minLength: 30, maxLength: 200 }))), ([n, steps]) => {
        const world = createWorld<ToyDoc, ToyOp>({}, n);
        for (const s of steps) step(toyModel, world, s, toyOp);
        settle(toyModel, world);
        const folded = applyEach(toyModel, {}, world.server.log.map((e) => e.op));
        // Every committed op applied where it landed: the log folds without a skip.
        expect(folded.dropped).toEqual([]);
        expect(folded.doc).toEqual(world.server.doc);
        for (const c of world.clients) {
          expect(c.doc.version).toBe(world.server.version);
          expect(c.doc.inflight).toBeNull();
          expect(c.doc.pending).toEqual([]);
          expect(c.doc.confirmed).toEqual(world.server.doc);
          expect(c.doc.local).toEqual(world.server.doc);
        }
        // Nothing is lost: each accepted edit was committed once or reported dropped.
        world.clients.forEach((c, i) => {
          const committedOps = world.server.log.filter((e) => e.clientId === c.id).length;
          expect(committedOps + (world.droppedBy[i] ?? 0)).toBe(world.accepted[i]);
        });
        // Sequence numbers are 1..n with no gap and no batch twice (retries were deduplicated).
        expect(world.server.log.map((e) => e.seq)).toEqual(world.server.log.map((_, i) => i + 1));
      }),
      { numRuns: 300 },
    );
  });

  it('an edit made by one client alone is never lost, however answers and streams fail', () => {
    fc.assert(
      fc.property(fc.array(stepArb(3).filter((s) => s.kind !== 'edit'), { maxLength: 60 }), (noise) => {
        const world = createWorld<ToyDoc, ToyOp>({}, 3);
        step(toyModel, world, { kind: 'edit', client: 0, pick: [0, 0, 1] }, toyOp);
        for (const s of noise) step(toyModel, world, s, toyOp);
        settle(toyModel, world);
        expect(world.server.doc).toEqual({ a: 'v1' });
        expect(world.server.log).toHaveLength(1);
      }),
    );
  });
});

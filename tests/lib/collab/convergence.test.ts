import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveWith } from '../../../src/lib/collab/rebase.ts';
import { createWorld, expectConverged, settle, step, stepArb } from './simulate.ts';
import { toyModel, toyOp, type ToyDoc, type ToyOp } from './toy-model.ts';

/**
 * Random op sequences from several clients, appended to a server-ordered log in any
 * interleaving (lost answers, skipped stream messages, reloads, checkpoints), converge:
 * every client's document is the log replayed, and so is the checkpoint. Here with a
 * document whose ops collide often (toy-model.ts); the statechart model runs through the
 * same simulation in model-convergence.test.ts.
 */

describe('collab convergence (toy document)', () => {
  it('every client ends with the log replayed, the checkpoint equals the replay, nothing is lost silently', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 5 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(stepArb(n), { minLength: 30, maxLength: 200 }))),
        ([n, steps]) => {
          const world = createWorld<ToyDoc, ToyOp>({}, n);
          for (const s of steps) step(toyModel, world, s, toyOp);
          settle(toyModel, world);
          expectConverged(toyModel, world, expect);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('at every step, each client shows its confirmed document with the peer batches shown and its own queue on top', () => {
    // The core keeps the peer batches applied between deliveries (a batch seen or
    // confirmed costs its own ops): what it shows must still be the whole stack resolved.
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 4 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(stepArb(n), { minLength: 30, maxLength: 150 }))),
        ([n, steps]) => {
          const world = createWorld<ToyDoc, ToyOp>({}, n);
          for (const s of steps) {
            step(toyModel, world, s, toyOp);
            for (const c of world.clients) {
              const d = c.doc;
              const stack = [...(d.remote ?? []).flatMap((b) => b.ops), ...(d.inflight?.ops ?? []), ...d.pending];
              const whole = stack.reduce((doc, op) => resolveWith(toyModel, doc, op).doc, d.confirmed);
              expect(d.local).toEqual(whole);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an edit made by one client alone is never lost, however answers and streams fail', () => {
    fc.assert(
      fc.property(
        fc.array(
          stepArb(3).filter((s) => s.kind !== 'edit'),
          { maxLength: 60 },
        ),
        (noise) => {
          const world = createWorld<ToyDoc, ToyOp>({}, 3);
          step(toyModel, world, { kind: 'edit', client: 0, pick: [0, 0, 1] }, toyOp);
          for (const s of noise) step(toyModel, world, s, toyOp);
          settle(toyModel, world);
          expect(world.server.log).toHaveLength(1);
          expect(world.clients[1]?.doc.local).toEqual({ a: 'v1' });
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chartroomModel } from '../../../src/lib/collab/chartroom.ts';
import { emptyHistory, recordEdit, undo } from '../../../src/lib/collab/history.ts';
import { counterIds, type MachineDefinition, type Op } from '../../../src/lib/model/index.ts';
import { baseDefinition, intent, toOp, type Intent } from '../model/arbitraries.ts';
import { createWorld, expectConverged, settle, step, stepArb } from './simulate.ts';

/**
 * With Chartroom's own model: random op sequences from up to 5 clients, appended to a
 * server-ordered log through lost answers, skipped stream messages, reloads and
 * checkpoints, converge: every client's document is the log replayed with `resolveOp`
 * and the checkpoint equals that replay; and undoing a person's edits one by one
 * restores the definition exactly.
 */

const fallback: Op = { type: 'machine.update', changes: { name: 'renamed' } };

/** Edits read a pre-drawn intent against the client's current definition. */
function opsFrom(intents: Intent[]) {
  const fresh = counterIds('sim');
  return (doc: MachineDefinition, pick: number[]): Op => {
    const i = intents[(pick[0] ?? 0) % Math.max(1, intents.length)];
    return (i && toOp(doc, i, fresh)) ?? fallback;
  };
}

describe('collab convergence (statechart model)', () => {
  it('after any interleaving of up to 5 editors, every client equals checkpoint + log replayed, and the checkpoint equals the replay', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 5 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(stepArb(n), { minLength: 30, maxLength: 150 }),
              fc.array(intent, { minLength: 10, maxLength: 40 }),
            ),
          ),
        ([n, steps, intents]) => {
          const initial = baseDefinition();
          const world = createWorld<MachineDefinition, Op>(initial, n);
          const genOp = opsFrom(intents);
          for (const s of steps) step(chartroomModel, world, s, genOp);
          settle(chartroomModel, world);
          expectConverged(chartroomModel, world, expect);
          // The checkpoint is stored as jsonb: it must survive the JSON round trip.
          const head = world.clients[0]?.doc.confirmed;
          expect(JSON.parse(JSON.stringify(head))).toEqual(head);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("undoing each of one person's edits, newest first, restores the definition exactly", () => {
    fc.assert(
      fc.property(fc.array(intent, { minLength: 1, maxLength: 30 }), (intents) => {
        const fresh = counterIds('undo');
        const start = baseDefinition();
        let doc = start;
        let history = emptyHistory<Op>();
        for (const i of intents) {
          const op = toOp(doc, i, fresh);
          if (!op) continue;
          let next: MachineDefinition;
          try {
            next = chartroomModel.apply(doc, op);
          } catch {
            continue;
          }
          history = recordEdit(chartroomModel, history, doc, [op]);
          doc = next;
        }
        for (let s = undo(chartroomModel, history, doc); s; s = undo(chartroomModel, history, doc)) {
          expect(s.dropped).toEqual([]);
          history = s.history;
          doc = s.doc;
        }
        expect(doc).toEqual(start);
      }),
      { numRuns: 200 },
    );
  });
});

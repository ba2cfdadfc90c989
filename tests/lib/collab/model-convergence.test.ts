import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chartroomModel } from '../../../src/lib/collab/chartroom.ts';
import { emptyHistory, recordEdit, undo } from '../../../src/lib/collab/history.ts';
import { applyEach } from '../../../src/lib/collab/rebase.ts';
import { counterIds, type MachineDefinition, type Op } from '../../../src/lib/model/index.ts';
import { baseDefinition, intent, toOp, type Intent } from '../model/arbitraries.ts';
import { createWorld, settle, step, stepArb } from './simulate.ts';

/**
 * Issue 5, "Done when", with Chartroom's own model: random op sequences from several
 * clients, through commit, conflict, rebase, lost answers, skipped stream messages and
 * reloads, converge to one definition, which is the fold of the log; and undoing a
 * person's edits one by one restores the definition exactly.
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
  it('every client ends with the server\'s definition, the fold of the log, and nothing is lost silently', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((n) => fc.tuple(fc.constant(n), fc.array(stepArb(n), { minLength: 30, maxLength: 150 }), fc.array(intent, { minLength: 10, maxLength: 40 }))),
        ([n, steps, intents]) => {
          const initial = baseDefinition();
          const world = createWorld<MachineDefinition, Op>(initial, n);
          const genOp = opsFrom(intents);
          for (const s of steps) step(chartroomModel, world, s, genOp);
          settle(chartroomModel, world);
          const folded = applyEach(chartroomModel, initial, world.server.log.map((e) => e.op));
          expect(folded.dropped).toEqual([]);
          expect(folded.doc).toEqual(world.server.doc);
          world.clients.forEach((c, i) => {
            expect(c.doc.version).toBe(world.server.version);
            expect(c.doc.local).toEqual(world.server.doc);
            expect(c.doc.confirmed).toEqual(world.server.doc);
            const committedOps = world.server.log.filter((e) => e.clientId === c.id).length;
            expect(committedOps + (world.droppedBy[i] ?? 0)).toBe(world.accepted[i]);
          });
          // What the server stored is what JSON (jsonb) gives back: the snapshot survives the trip.
          expect(JSON.parse(JSON.stringify(world.server.doc))).toEqual(world.server.doc);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('undoing each of one person\'s edits, newest first, restores the definition exactly', () => {
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

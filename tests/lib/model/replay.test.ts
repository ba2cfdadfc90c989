import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOps,
  canApply,
  counterIds,
  integrityProblems,
  replayOps,
  type MachineDefinition,
  type Op,
} from '../../../src/lib/model/index.ts';
import { definition, intent, toOp, type Intent } from './arbitraries.ts';

/**
 * The contract the collaboration layer relies on: a client's pending ops, replayed on
 * whatever was committed meanwhile, keep exactly the ops that still apply; the server
 * log of kept ops, applied from the base by anyone, reaches the same definition.
 */

function pendingOps(base: MachineDefinition, intents: Intent[], seed: string): Op[] {
  const fresh = counterIds(seed);
  const ops: Op[] = [];
  let def = base;
  for (const i of intents) {
    const op = toOp(def, i, fresh);
    if (op === null || !canApply(def, op)) continue;
    def = applyOps(def, [op]);
    ops.push(op);
  }
  return ops;
}

describe('replaying pending ops (rebase by stable id)', () => {
  it('clients committing in any interleaving converge on the server log', () => {
    const client = fc.array(intent, { maxLength: 12 });
    fc.assert(
      fc.property(
        definition,
        client,
        client,
        client,
        fc.array(fc.nat(2), { minLength: 1, maxLength: 12 }),
        (base, a, b, c, turns) => {
          // Each client edits its own copy of the base; then they take turns committing.
          const pending = [pendingOps(base, a, 'A'), pendingOps(base, b, 'B'), pendingOps(base, c, 'C')];
          const log: Op[] = [];
          let server = base;
          for (const turn of [...turns, 0, 1, 2]) {
            const mine = pending[turn] ?? [];
            if (mine.length === 0) continue;
            // Commit one op at a time, replayed on the latest server state.
            const { definition: next, kept } = replayOps(server, mine.splice(0, 1 + (turn % 2)));
            server = next;
            log.push(...kept);
          }
          for (const rest of pending) {
            const { definition: next, kept } = replayOps(server, rest);
            server = next;
            log.push(...kept);
          }
          expect(integrityProblems(server)).toEqual([]);
          // Anyone replaying the log from the base reaches the server's definition.
          expect(applyOps(base, log)).toStrictEqual(server);
          expect(JSON.parse(JSON.stringify(server))).toStrictEqual(server);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});

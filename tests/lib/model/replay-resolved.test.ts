import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveOp, replayResolved } from '../../../src/lib/model/resolve.ts';
import type { Op } from '../../../src/lib/model/index.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';
import { definition, freeze, intent, opsFrom } from './arbitraries.ts';

/**
 * replayResolved (what clients and the checkpoint compute from the log) goes through the
 * log in runs applied in one draft, and falls back to resolveOp op by op for a run with an
 * op that does not apply as written. It must give exactly what resolveOp op by op gives.
 */
const oneByOne = (def: MachineDefinition, ops: readonly Op[]): MachineDefinition =>
  ops.reduce((d, op) => resolveOp(d, op).definition, def);

describe('replayResolved: runs in one draft, the same result as resolveOp op by op', () => {
  it('two people’s interleaved edits (collisions, deleted targets, repeats) over many runs', () => {
    fc.assert(
      fc.property(
        definition,
        fc.array(intent, { minLength: 1, maxLength: 120 }),
        fc.array(intent, { minLength: 1, maxLength: 120 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
        (def, mine, theirs, picks) => {
          const a = opsFrom(def, mine, 'ada');
          const b = opsFrom(def, theirs, 'bob');
          // Interleave the two logs as the server might order them, plus some ops twice.
          const log: Op[] = [];
          let i = 0;
          let j = 0;
          for (const pick of picks) {
            for (let k = 0; k < 1 + (pick % 5); k++) {
              if (pick % 2 === 0 && i < a.length) log.push(a[i++]!);
              else if (j < b.length) log.push(b[j++]!);
            }
            if (pick % 7 === 0 && log.length > 0) log.push(log[pick % log.length]!);
          }
          log.push(...a.slice(i), ...b.slice(j));
          // Long enough to cross several runs.
          const longLog = [...log, ...log, ...log];
          const expected = oneByOne(def, longLog);
          freeze(def);
          freeze(longLog);
          expect(replayResolved(def, longLog)).toStrictEqual(expected);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('an op that does not apply in the middle of a run is a no-op, the rest of the run applies', () => {
    fc.assert(
      fc.property(definition, fc.array(intent, { minLength: 1, maxLength: 200 }), (def, intents) => {
        const ops = opsFrom(def, intents);
        const bad: Op = { type: 'state.delete', id: 'no-such-state' };
        const log = [...ops.slice(0, 60), bad, ...ops.slice(60)];
        expect(replayResolved(freeze(def), log)).toStrictEqual(oneByOne(def, ops));
      }),
      { numRuns: 60 },
    );
  });
});

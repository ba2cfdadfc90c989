import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyLog,
  mergeEntries,
  readyEntries,
  replay,
  Simulator,
  traceOf,
  type KnownLog,
  type SimLogEntry,
  type SimStep,
} from '../../../src/lib/simulation/index.ts';
import { checkout, logOf, setupOf, type Script } from './fixtures.ts';

/**
 * The log is the truth: every client computes the state by replaying the
 * log, so any delivery order of the same log gives the same state, and a client that
 * applied entries live, as they became ready, shows what a fresh replay shows.
 */

const setup = setupOf(checkout);
const types = [
  'ADD',
  'CHECKOUT',
  'SWITCH',
  'BACK',
  'xstate.done.actor.gateway',
  'xstate.error.actor.gateway',
  'NOPE',
  'time',
];

const scriptArb: fc.Arbitrary<Script> = fc.array(
  fc
    .record({ type: fc.constantFrom(...types), hasItems: fc.boolean() })
    .map(({ type, hasItems }) => ({ type, guards: { hasItems } })),
  { maxLength: 40 },
);

function entriesOf(script: Script): SimLogEntry[] {
  return logOf(script).map((e) => (e.type === 'time' ? { ...e, kind: 'time', type: null } : e));
}

/** Deliveries: every entry at least once, some twice, in a permuted order, in chunks. */
const deliveryArb = (n: number) =>
  fc.tuple(
    fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    fc.array(fc.nat({ max: Math.max(0, n - 1) }), { maxLength: n }),
    fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 10 }),
  );

/** A live client: merges each chunk as it arrives and applies whatever became ready. */
function liveClient(entries: SimLogEntry[], order: number[], chunks: number[]): { steps: SimStep[]; log: KnownLog } {
  const sim = new Simulator(setup);
  const steps = [sim.start()];
  let log = emptyLog;
  let i = 0;
  let c = 0;
  while (i < order.length) {
    const size = chunks[c++ % chunks.length] ?? 1;
    const chunk = order.slice(i, i + size).map((k) => entries[k] as SimLogEntry);
    i += size;
    log = mergeEntries(log, chunk);
    for (const e of readyEntries(log).slice(sim.seq)) steps.push(sim.apply(e));
    // A client also asks the simulator questions between entries; answers must not disturb it.
    sim.canSend('CHECKOUT', { hasItems: true });
  }
  return { steps, log };
}

describe('simulation log properties', () => {
  it('any delivery order of the same log gives the same state, equal to a replay', () => {
    fc.assert(
      fc.property(
        scriptArb.chain((script) => fc.tuple(fc.constant(script), deliveryArb(script.length))),
        ([script, [order, repeats, chunks]]) => {
          const entries = entriesOf(script);
          const delivered = [...order, ...repeats.filter((k) => k < entries.length)];
          const live = liveClient(entries, delivered, chunks);
          const fresh = replay(setup, entries);
          expect(live.log.ready).toBe(entries.length);
          expect(live.steps).toEqual(fresh.steps);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('two clients receiving the log in different orders agree at every step', () => {
    fc.assert(
      fc.property(
        scriptArb.chain((script) =>
          fc.tuple(fc.constant(script), deliveryArb(script.length), deliveryArb(script.length)),
        ),
        ([script, a, b]) => {
          const entries = entriesOf(script);
          const one = liveClient(entries, a[0], a[2]);
          const two = liveClient(entries, b[0], b[2]);
          expect(one.steps).toEqual(two.steps);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a prefix with a hole replays only up to the hole', () => {
    const entries = entriesOf(['ADD', 'ADD', 'ADD', 'ADD']);
    const log = mergeEntries(emptyLog, [entries[0]!, entries[1]!, entries[3]!]);
    expect(log.ready).toBe(2);
    expect(readyEntries(log).map((e) => e.seq)).toEqual([1, 2]);
    expect(mergeEntries(log, [entries[2]!]).ready).toBe(4);
  });
});

describe('growing traces', () => {
  it('a trace extended as entries arrive equals a replay of them all', () => {
    fc.assert(
      fc.property(
        scriptArb,
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 12 }),
        (script, cuts) => {
          const entries = entriesOf(script);
          let trace = traceOf(setup, []);
          let upTo = 0;
          for (const cut of cuts) {
            upTo = Math.min(entries.length, upTo + cut);
            trace = traceOf(setup, entries.slice(0, upTo), trace);
          }
          trace = traceOf(setup, entries, trace);
          expect(trace.steps).toEqual(replay(setup, entries).steps);
        },
      ),
      { numRuns: 100 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/lib/model/index.ts';
import {
  eventOptions,
  MemoWalker,
  optionsAtEnd,
  replay,
  replayToState,
  Simulator,
  traceOf,
  type SimLogEntry,
  type SimSetup,
  type SimStep,
} from '../../../src/lib/simulation/index.ts';
import { entryKey } from '../../../src/lib/simulation/memo.ts';
import { checkout, setupOf } from './fixtures.ts';

/**
 * The memoised replay (memo.ts) against the plain one: the same steps, entry by entry,
 * whatever the log, on a cold graph and on one warmed by other logs, and the same
 * answers to "what can be sent now" at the end.
 */

/** Parallel regions with deep history, two `after` timers of different lengths, guards. */
const shop: JsonObject = {
  id: 'shop',
  initial: 'browsing',
  context: { items: 0 },
  states: {
    browsing: {
      entry: 'track',
      on: { ADD: { actions: 'addItem' }, CHECKOUT: { target: 'paying', guard: 'hasItems' } },
    },
    paying: {
      type: 'parallel',
      invoke: { src: 'gateway', id: 'gateway', onDone: 'done' },
      after: { 5000: 'browsing' },
      on: { BACK: 'browsing', RESUME: '#shop.paying.form.hist' },
      states: {
        form: {
          initial: 'card',
          states: {
            card: { on: { SWITCH: 'wallet' } },
            wallet: { after: { 1500: 'card' }, on: { SWITCH: 'card' } },
            hist: { type: 'history', history: 'deep' },
          },
        },
        status: {
          initial: 'idle',
          states: { idle: { on: { SUBMIT: { target: 'busy', actions: 'submit' } } }, busy: { on: { FAIL: 'idle' } } },
        },
      },
    },
    done: { type: 'final' },
  },
};

const charts: [string, JsonObject, string[]][] = [
  ['checkout', checkout, ['ADD', 'CHECKOUT', 'SWITCH', 'BACK', 'xstate.done.actor.gateway', 'NOPE', 'time']],
  [
    'shop',
    shop,
    ['ADD', 'CHECKOUT', 'SWITCH', 'SUBMIT', 'FAIL', 'RESUME', 'BACK', 'xstate.done.actor.gateway', 'time', 'time'],
  ],
];

const logArb = (types: string[]) =>
  fc
    .array(fc.record({ type: fc.constantFrom(...types), hasItems: fc.boolean(), n: fc.nat(9) }), { maxLength: 60 })
    .map((items) =>
      items.map(({ type, hasItems, n }, i): SimLogEntry => ({
        seq: i + 1,
        kind: type === 'time' ? 'time' : 'event',
        type: type === 'time' ? null : type,
        payload: { n },
        guards: { hasItems },
        sender: null,
      })),
    );

/** The reference: a plain simulator, one apply per entry. */
function plainSteps(setup: SimSetup, entries: readonly SimLogEntry[]): SimStep[] {
  const sim = new Simulator(setup);
  const steps = [sim.start()];
  for (const e of entries) steps.push(sim.apply(e));
  sim.stop();
  return steps;
}

describe.each(charts)('memoised replay on %s', (_name, config, types) => {
  it('gives the same steps as a plain simulator, cold and warmed by other logs', () => {
    fc.assert(
      fc.property(fc.array(logArb(types), { minLength: 1, maxLength: 4 }), (logs) => {
        const setup = setupOf(config, { hasItems: true });
        for (const entries of logs) {
          const expected = plainSteps(setup, entries);
          expect(replay(setup, entries).steps).toEqual(expected);
          const last = replayToState(setup, entries);
          expect({ ...last, actions: [] }).toEqual({ ...expected[expected.length - 1]!, actions: [] });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('answers what can be sent at the end as a plain simulator does', () => {
    fc.assert(
      fc.property(logArb(types), logArb(types), fc.boolean(), (warm, entries, hasItems) => {
        const setup = setupOf(config, { hasItems: true });
        replay(setup, warm);
        const plain = new Simulator(setup);
        for (const e of entries) plain.apply(e);
        const trace = traceOf(setup, entries);
        expect(optionsAtEnd(setup, trace, entries, { hasItems })).toEqual(eventOptions(plain, { hasItems }));
      }),
      { numRuns: 40 },
    );
  });
});

describe('the memo graph', () => {
  it('a long repetitive log, mostly known steps, gives the plain steps and simulated time', () => {
    const setup = setupOf(shop, { hasItems: true });
    const cycle = ['ADD', 'CHECKOUT', 'SWITCH', 'SUBMIT', 'FAIL', 'RESUME', 'time', 'BACK'];
    const entries: SimLogEntry[] = Array.from({ length: 2000 }, (_, i) => {
      const type = cycle[i % cycle.length]!;
      return {
        seq: i + 1,
        kind: type === 'time' ? 'time' : 'event',
        type: type === 'time' ? null : type,
        payload: { i },
        guards: { hasItems: true },
        sender: null,
      };
    });
    const walker = new MemoWalker(setup);
    const steps = [walker.start(), ...entries.map((e) => walker.apply(e))];
    expect(steps).toEqual(plainSteps(setup, entries));
    // Simulated time still adds up across known steps.
    expect(steps[steps.length - 1]!.now).toBe(plainSteps(setup, entries).at(-1)!.now);
    expect(steps[steps.length - 1]!.now).toBeGreaterThan(0);
  });
});

describe('the memo key of an entry', () => {
  const arbEntry = fc.record({
    kind: fc.constantFrom('event' as const, 'time' as const),
    type: fc.oneof(fc.constant(null), fc.string({ maxLength: 6 }), fc.constantFrom('a|1:b1', '1:a', '', '|')),
    guards: fc.dictionary(fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('a|1:b', '1:')), fc.boolean(), {
      maxKeys: 3,
    }),
  });
  const entryOf = (e: {
    kind: 'event' | 'time';
    type: string | null;
    guards: Record<string, boolean>;
  }): SimLogEntry => ({
    seq: 1,
    kind: e.kind,
    type: e.type,
    payload: {},
    guards: e.guards,
    sender: null,
  });
  const before = (e: SimLogEntry) => JSON.stringify([e.kind, e.kind === 'time' ? null : e.type, e.guards]);

  it('tells two entries apart exactly when the JSON key it replaced did (any names, separators in them too)', () => {
    fc.assert(
      fc.property(arbEntry, arbEntry, (a, b) => {
        const [x, y] = [entryOf(a), entryOf(b)];
        expect(entryKey(x) === entryKey(y)).toBe(before(x) === before(y));
      }),
      { numRuns: 2000 },
    );
  });
});

import { createActor, createMachine } from 'xstate';
import type { BenchContext } from '../lib.ts';
import { ms, since, summarize } from '../lib.ts';
import { counterIds, exportXState, importXState, type JsonObject } from '../../src/lib/model/index.ts';
import {
  emptyLog,
  mergeEntries,
  readyEntries,
  replay,
  replayToState,
  type SimLogEntry,
  Simulator,
  type SimSetup,
} from '../../src/lib/simulation/index.ts';
import { entryKey } from '../../src/lib/simulation/memo.ts';

/**
 * Replaying a simulation log ("replay of 10,000 simulation events to a state,
 * Node, < 100 ms"). The chart has nested, parallel and history states, guards, actions,
 * an invoked actor and an `after` timer; the log mixes events, time steps and events
 * that are not enabled. Baseline in the same run: the same events sent to a plain XState
 * actor of the same config with no-op implementations (what a replay without the memo
 * pays), and the simulator without the memo.
 */

const config: JsonObject = {
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
          states: { card: { on: { SWITCH: 'wallet' } }, wallet: { on: { SWITCH: 'card' } }, hist: { type: 'history' } },
        },
        status: {
          initial: 'idle',
          states: { idle: { on: { SUBMIT: { target: 'busy', actions: 'submit' } } }, busy: { on: { FAIL: 'idle' } } },
        },
      },
    },
    done: { on: { RESTART: 'browsing' } },
  },
};

const CYCLE: (string | null)[] = [
  'ADD',
  'CHECKOUT',
  'SWITCH',
  'SUBMIT',
  'FAIL',
  'RESUME',
  'SWITCH',
  null,
  'CHECKOUT',
  'BACK',
  'NOPE',
  'CHECKOUT',
  'xstate.done.actor.gateway',
  'RESTART',
];

function logOf(n: number): SimLogEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const type = CYCLE[i % CYCLE.length] ?? null;
    return {
      seq: i + 1,
      kind: type === null ? 'time' : 'event',
      type,
      payload: { i },
      guards: { hasItems: i % 3 !== 0 },
      sender: null,
    };
  });
}

function timed(runs: number, fn: () => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    out.push(since(start));
  }
  return out;
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('simulation (src/lib/simulation): replay of a shared simulation log');
  const definition = importXState(config, { ids: counterIds('b') });
  const setup: SimSetup = { definition, context: null, guards: { hasItems: true } };
  const log = logOf(10_000);
  const end = replayToState(setup, log);
  const ignored = replay(setup, log).steps.filter((s) => s.ignored !== null).length;
  ctx.report(`log: 10,000 entries, ${ignored} ignored; final state`, end.activePaths.join(' '));

  // Cold: a new setup object each run, so the memo graph (memo.ts) starts empty and
  // every new (state, entry) pair runs on the actor. Warm: the same setup again, as a
  // client replaying (scrubbing, re-reading) a simulation it already replayed once.
  timed(5, () => replayToState({ ...setup }, log));
  const toState = summarize(timed(15, () => replayToState({ ...setup }, log)));
  ctx.report('replay 10,000 events to a state, cold: p50', ms(toState.p50), '< 100 ms');
  ctx.report('replay 10,000 events to a state, cold: p95', ms(toState.p95));
  const warm = summarize(timed(15, () => replayToState(setup, log)));
  ctx.report('replay 10,000 events to a state, warm: p50', ms(warm.p50));
  const withTrace = summarize(timed(9, () => replay({ ...setup }, log)));
  ctx.report('replay 10,000 events keeping every step (scrubbing), cold: p50', ms(withTrace.p50));
  const unmemoised = summarize(
    timed(5, () => {
      const sim = new Simulator(setup);
      for (const e of log) sim.advance(e);
      sim.stop();
    }),
  );
  ctx.report('the same on the actor alone, no memo (before): p50', ms(unmemoised.p50));

  const plain = createMachine(exportXState(definition)).provide({
    guards: { hasItems: () => true },
    actions: { track: () => undefined, addItem: () => undefined, submit: () => undefined },
  });
  const baseline = summarize(
    timed(15, () => {
      const actor = createActor(plain).start();
      for (const e of log) if (e.type !== null && !e.type.startsWith('xstate.')) actor.send({ type: e.type });
      actor.stop();
    }),
  );
  ctx.report('baseline: the same events to a plain XState actor: p50', ms(baseline.p50));
  ctx.report('replay cold / baseline (p50)', `${(toState.p50 / baseline.p50).toFixed(3)}x`);
  ctx.report('replay cold / no memo (p50)', `${(toState.p50 / unmemoised.p50).toFixed(3)}x`);

  // Where a cold replay went (a CPU profile): a third of it built each
  // entry's memo key with JSON.stringify. Both ways on the same 10,000 entries.
  const jsonKey = (e: SimLogEntry) => JSON.stringify([e.kind, e.kind === 'time' ? null : e.type, e.guards]);
  let sink = 0;
  const keysBefore = summarize(timed(15, () => log.forEach((e) => (sink += jsonKey(e).length))));
  const keysNow = summarize(timed(15, () => log.forEach((e) => (sink += entryKey(e).length))));
  ctx.report('memo keys for 10,000 entries, JSON.stringify (before): p50', ms(keysBefore.p50));
  ctx.report('memo keys for 10,000 entries, built by hand (now): p50', ms(keysNow.p50));
  ctx.report('memo keys now / before (p50)', `${(keysNow.p50 / keysBefore.p50).toFixed(3)}x`);
  if (sink === 0) throw new Error('no keys were built');

  const shuffled = [...log].sort((a, b) => ((a.seq * 7919) % 10_007) - ((b.seq * 7919) % 10_007));
  const merge = summarize(timed(9, () => readyEntries(mergeEntries(emptyLog, shuffled))));
  ctx.report('order 10,000 entries delivered shuffled (merge + prefix): p50', ms(merge.p50));
  await Promise.resolve();
}

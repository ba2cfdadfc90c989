import type { BenchContext } from '../lib.ts';
import { ms, since, summarize } from '../lib.ts';
import { counterIds, importXState, type JsonObject, type MachineDefinition } from '../../src/lib/model/index.ts';
import { replayToState, type SimLogEntry } from '../../src/lib/simulation/index.ts';
import {
  buildTestGraph,
  computeCoverage,
  CoverageTracker,
  shortestPaths,
  type CoverageRun,
} from '../../src/lib/testing/index.ts';

/**
 * The tests panel: "shortest paths to every state, 200-state chart, < 1 s" (in
 * Node, as the page's worker runs it) and "coverage recomputed after an edit, 200
 * states, 1,000 recorded events, < 50 ms". The chart: 10 compound groups of 19 steps,
 * NEXT walking each group, JUMP and a guarded SKIP between groups, one parallel pair.
 * Baseline in the same run: replaying the same 1,000 events to a state, no coverage.
 * Coverage after an edit: the full recompute (computeCoverage, the old way) against the
 * incremental tracker (CoverageTracker) over the same edits, alternating between the
 * version before and after each edit so every timed call follows an edit.
 */

export function bigChart(): JsonObject {
  const groups: JsonObject = {};
  for (let g = 0; g < 10; g++) {
    const states: JsonObject = {};
    for (let s = 0; s < 19; s++)
      states[`s${s}`] = s < 18 ? { on: { NEXT: `s${s + 1}`, BACK: `s${Math.max(0, s - 1)}` } } : {};
    groups[`g${g}`] = {
      initial: 's0',
      states,
      on: {
        JUMP: `#big.g${(g + 1) % 10}`,
        SKIP: { target: `#big.g${(g + 3) % 10}`, guard: 'canSkip' },
      },
    };
  }
  groups.pair = {
    type: 'parallel',
    states: {
      left: { initial: 'a', states: { a: { on: { L: 'b' } }, b: {} } },
      right: { initial: 'a', states: { a: {}, b: {} } },
    },
  };
  return { id: 'big', initial: 'g0', states: groups };
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

/** Timed calls per edit and way (30: a p95 that is not just the slowest call). */
const ROUNDS = 30;

const CYCLE = ['NEXT', 'NEXT', 'BACK', 'NEXT', 'JUMP', 'NEXT', 'SKIP', 'NOPE'];

export function runsOf(events: number, perRun: number): CoverageRun[] {
  const runs: CoverageRun[] = [];
  for (let r = 0; r < events / perRun; r++) {
    const entries: SimLogEntry[] = Array.from({ length: perRun }, (_, i) => ({
      seq: i + 1,
      kind: 'event',
      type: CYCLE[(i + r) % CYCLE.length] as string,
      payload: {},
      guards: { canSkip: (i + r) % 2 === 0 },
      sender: null,
    }));
    runs.push({ context: null, entries });
  }
  return runs;
}

/** Five edits in group g5: a rename, a transition sent elsewhere, a new child state, a transition added, one removed. */
export function editsOf(def: MachineDefinition): [string, MachineDefinition][] {
  const g5 = Object.values(def.states).find((s) => s.key === 'g5' && s.parent === def.root);
  const s1 = g5 && Object.values(def.states).find((s) => s.key === 's1' && s.parent === g5.id);
  const next = s1 && Object.values(def.transitions).find((t) => t.source === s1.id && t.event === 'NEXT');
  if (!g5 || !s1 || !next) throw new Error('bench chart: g5.s1 NEXT not found');
  const child = { ...s1, id: 'bench-new', key: 'added', entry: [], exit: [] };
  const added = { ...next, id: 'bench-new-t', event: 'HOP', targets: [g5.initial as string], order: next.order + 100 };
  const { [next.id]: _removed, ...without } = def.transitions;
  return [
    ['rename g5.s1', { ...def, states: { ...def.states, [s1.id]: { ...s1, key: 'renamed' } } }],
    [
      'g5.s1 NEXT to g5.s0',
      { ...def, transitions: { ...def.transitions, [next.id]: { ...next, targets: [g5.initial as string] } } },
    ],
    [
      'new state in g5',
      {
        ...def,
        states: { ...def.states, [child.id]: child, [g5.id]: { ...g5, children: [...g5.children, child.id] } },
      },
    ],
    ['new transition g5.s1 HOP', { ...def, transitions: { ...def.transitions, [added.id]: added } }],
    ['g5.s1 NEXT removed', { ...def, transitions: without }],
  ];
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('testing (src/lib/testing): paths and coverage for the tests panel');
  const def: MachineDefinition = importXState(bigChart(), { ids: counterIds('t') });
  const states = Object.keys(def.states).length - 1;
  const graph = buildTestGraph(def);
  const { paths } = shortestPaths(def, {}, graph);
  ctx.report(
    `chart: ${states} states; graph`,
    `${graph.vertices.size} configs, ${graph.edges.length} edges, ${paths.length} paths`,
  );
  timed(1, () => shortestPaths(def));
  // Alternating with the old way (every edge's step taken again after probing its guards), same run, same load.
  const gens: number[] = [];
  const olds: number[] = [];
  for (let i = 0; i < 5; i++) {
    gens.push(...timed(1, () => shortestPaths(def)));
    olds.push(...timed(1, () => shortestPaths(def, { retakeProbed: true })));
  }
  const gen = summarize(gens);
  const old = summarize(olds);
  ctx.report('shortest paths to every state (graph + paths): p50', ms(gen.p50), '< 1 s');
  ctx.report('shortest paths to every state: p95', ms(gen.p95));
  ctx.report('baseline: the same, each edge stepped again after probing (old): p50', ms(old.p50));
  ctx.report('shortest paths: new / old (p50)', `${(gen.p50 / old.p50).toFixed(2)}x`);

  const runs = runsOf(1000, 100);
  computeCoverage(def, runs);
  const cov = summarize(timed(15, () => computeCoverage(def, runs)));
  const c = computeCoverage(def, runs);
  ctx.report('coverage: states / transitions covered', `${c.states.covered.size} / ${c.transitions.covered.size}`);
  ctx.report('coverage full recompute (no edit), 200 states, 1,000 events: p50', ms(cov.p50));
  ctx.report('coverage recompute: p95', ms(cov.p95));
  const edits = editsOf(def);
  for (const [what, edited] of edits) {
    const full = summarize(timed(9, () => computeCoverage(edited, runs)));
    // The incremental tracker moving its machine in place (new) and building it anew for each version (old),
    // interleaved so both see the same load. Each timed call follows an edit: a fresh copy of the
    // edited version, so nothing is looked up by identity.
    const tracker = new CoverageTracker();
    const rebuilt = new CoverageTracker({ patch: false });
    tracker.compute(def, runs);
    rebuilt.compute(def, runs);
    const ran: number[] = [];
    const incr: number[] = [];
    const olds: number[] = [];
    let patched = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const copy = { ...edited };
      incr.push(...timed(1, () => tracker.compute(copy, runs)));
      ran.push(tracker.ran);
      if (tracker.patched) patched++;
      olds.push(...timed(1, () => rebuilt.compute({ ...edited }, runs)));
      tracker.compute({ ...def }, runs);
      rebuilt.compute({ ...def }, runs);
    }
    const inc = summarize(incr);
    const old = summarize(olds);
    ctx.report(`after an edit (${what}): full recompute p50`, ms(full.p50));
    ctx.report(
      `after an edit (${what}): incremental p50 / p95`,
      `${ms(inc.p50)} / ${ms(inc.p95)} (${Math.max(...ran)} of 1,000 steps run again; machine moved in place ${patched}/${ROUNDS})`,
      '< 50 ms',
    );
    ctx.report(
      `after an edit (${what}): old incremental (machine built anew) p50 / p95`,
      `${ms(old.p50)} / ${ms(old.p95)}`,
    );
    ctx.report(`after an edit (${what}): new / old incremental (p50)`, `${(inc.p50 / old.p50).toFixed(3)}x`);
    ctx.report(`after an edit (${what}): incremental / full (p50)`, `${(inc.p50 / full.p50).toFixed(3)}x`);
  }
  const setup = { definition: def, context: null, guards: {} };
  const base = summarize(timed(15, () => runs.forEach((r) => replayToState(setup, r.entries))));
  ctx.report('baseline: replay the same 1,000 events to a state: p50', ms(base.p50));
  ctx.report('coverage / baseline (p50)', `${(cov.p50 / base.p50).toFixed(2)}x`);
  await Promise.resolve();
}

import { describe, expect, it } from 'vitest';
import {
  buildTestGraph,
  PathLimitError,
  shortestPaths,
  simplePaths,
  transitionCover,
  type TestPath,
} from '../../../src/lib/testing/index.ts';
import { clique, def, delayed, finals, history, parallel, payment } from './charts.ts';

/** Paths: generated paths against paths computed by hand. */

const byTarget = (paths: TestPath[]): Record<string, string> =>
  Object.fromEntries(paths.map((p) => [p.target ?? '', p.words]));

describe('shortest paths', () => {
  it('names guard outcomes as assumptions (guards)', () => {
    const { paths, unreachable } = shortestPaths(def(payment));
    expect(byTarget(paths)).toEqual({
      idle: 'start in idle',
      paying: 'start in idle → PAY (assuming `hasCard` is true) → paying',
      declined: 'start in idle → PAY (assuming `hasCard` is false) → declined',
      paid: 'start in idle → PAY (assuming `hasCard` is true) → paying → SUCCESS → paid',
    });
    expect(unreachable).toEqual([]);
    const paid = paths.find((p) => p.target === 'paid');
    expect(paid?.steps.map((s) => [s.type, s.guards, s.expect])).toEqual([
      ['PAY', { hasCard: true }, ['paying']],
      ['SUCCESS', {}, ['paid']],
    ]);
  });

  it('walks regions of a parallel state independently (parallel)', () => {
    const { paths } = shortestPaths(def(parallel));
    expect(byTarget(paths)).toEqual({
      a: 'start in a.a1 + b.b1',
      'a.a1': 'start in a.a1 + b.b1',
      'a.a2': 'start in a.a1 + b.b1 → A → a.a2 + b.b1',
      b: 'start in a.a1 + b.b1',
      'b.b1': 'start in a.a1 + b.b1',
      'b.b2': 'start in a.a1 + b.b1 → B → a.a1 + b.b2',
    });
    // 4 configurations: {a1,a2} x {b1,b2}.
    expect(buildTestGraph(def(parallel)).vertices.size).toBe(4);
  });

  it('reaches a done state through onDone and stops there (final)', () => {
    const { paths, unreachable } = shortestPaths(def(finals));
    expect(byTarget(paths)).toEqual({
      work: 'start in work.a',
      'work.a': 'start in work.a',
      done: 'start in work.a → NEXT → done',
    });
    // work.b is entered and left in the same macrostep (onDone): no configuration rests in it.
    expect(unreachable).toEqual(['work.b']);
    const graph = buildTestGraph(def(finals));
    const done = [...graph.vertices.values()].find((v) => v.done);
    expect(done?.activePaths).toEqual(['done']);
    expect(graph.out.get(done?.key ?? '')).toEqual([]);
  });

  it('takes a delayed transition as a time step', () => {
    const { paths } = shortestPaths(def(delayed));
    expect(byTarget(paths).b).toBe('start in a → after 1000 ms → b');
    expect(paths.find((p) => p.target === 'b')?.steps[0]?.kind).toBe('time');
  });

  it('drops a step into unguarded eventless transitions that never settle, instead of hanging', () => {
    const chart = {
      id: 'spin',
      initial: 'a',
      states: { a: { on: { GO: 'b', OK: 'c' } }, b: { always: 'c' }, c: { always: 'b' }, d: {} },
    };
    const { paths, unreachable } = shortestPaths(def(chart));
    expect(paths.map((p) => p.target)).toEqual(['a']);
    expect(unreachable).toEqual(['b', 'c', 'd']);
  });

  it('lists a state nothing reaches as unreachable', () => {
    const chart = { id: 'u', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {}, island: {} } };
    const { paths, unreachable } = shortestPaths(def(chart));
    expect(paths.map((p) => p.target)).toEqual(['a', 'b']);
    expect(unreachable).toEqual(['island']);
  });
});

describe('history', () => {
  it('tells configurations apart by their history, and resumes where it left off', () => {
    const graph = buildTestGraph(def(history));
    // off (no history), on.low, on.high, off (history low), off (history high) and the
    // same "on" states with history recorded: the history value is part of the vertex.
    const offs = [...graph.vertices.values()].filter((v) => v.activePaths.includes('off'));
    expect(offs.length).toBe(3);
    const resumes = graph.edges.filter(
      (e) =>
        e.type === 'ON' &&
        graph.vertices.get(e.to)?.activePaths.includes('on.high') &&
        graph.vertices.get(e.from)?.activePaths.includes('off'),
    );
    expect(resumes.length).toBe(1);
    const target = simplePaths(def(history), 'on.high', { depth: 4 });
    expect(target.map((p) => p.words)).toEqual([
      'start in off → ON → on.low → UP → on.high',
      'start in off → ON → on.low → OFF → off → ON → on.low → UP → on.high',
    ]);
  });

  it('covers every transition, through the history state', () => {
    const { paths, untaken } = transitionCover(def(history));
    expect(untaken).toEqual([]);
    expect(paths.map((p) => p.words)).toEqual([
      'start in off → ON → on.low',
      'start in off → ON → on.low → UP → on.high',
      'start in off → ON → on.low → OFF → off',
    ]);
  });
});

describe('simple paths and limits', () => {
  it('lists every path to a target that visits nothing twice, shortest first', () => {
    const paths = simplePaths(def(payment), 'paid');
    expect(paths.map((p) => p.words)).toEqual([
      'start in idle → PAY (assuming `hasCard` is true) → paying → SUCCESS → paid',
    ]);
    expect(simplePaths(def(payment), 'declined').map((p) => p.words)).toEqual([
      'start in idle → PAY (assuming `hasCard` is false) → declined',
    ]);
  });

  it('stops past the limit with a clear message instead of hanging', () => {
    // From s0 to s4 through any subset of s1..s3 in any order: 1 + 3 + 6 + 6 = 16 paths.
    expect(simplePaths(def(clique), 's4').length).toBe(16);
    expect(() => simplePaths(def(clique), 's4', { maxPaths: 5 })).toThrow(PathLimitError);
    expect(() => simplePaths(def(clique), 's4', { maxPaths: 5 })).toThrow(
      'more than 5 paths; choose a target state or a depth',
    );
    // A depth bounds it: only the direct path and those through one other state.
    expect(simplePaths(def(clique), 's4', { maxPaths: 5, depth: 2 }).length).toBe(4);
  });

  it('refuses a state space over the limit', () => {
    expect(() => buildTestGraph(def(parallel), { maxStates: 3 })).toThrow(PathLimitError);
  });

  it('covers each guarded branch once in the transition cover', () => {
    const { paths, untaken } = transitionCover(def(payment));
    expect(untaken).toEqual([]);
    expect(paths.map((p) => p.words)).toEqual([
      'start in idle → PAY (assuming `hasCard` is true) → paying',
      'start in idle → PAY (assuming `hasCard` is false) → declined',
      'start in idle → PAY (assuming `hasCard` is true) → paying → SUCCESS → paid',
      'start in idle → PAY (assuming `hasCard` is false) → declined → RETRY → idle',
    ]);
  });
});

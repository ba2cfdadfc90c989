import { describe, expect, it } from 'vitest';
import {
  eventOptions,
  replay,
  replayToState,
  rerunOnDefinition,
  Simulator,
} from '../../../src/lib/simulation/index.ts';
import { checkout, def, logOf, setupOf } from './fixtures.ts';

/**
 * The simulation's semantics are XState's own (a real v5 actor), with guards, actions,
 * actors and delays reduced to names: "Full semantics" and "No code from a
 * definition ever runs".
 */

const last = (config: Parameters<typeof setupOf>[0], script: Parameters<typeof logOf>[0], guards = {}) =>
  replayToState(setupOf(config, guards), logOf(script, guards));

describe('transitions and guards', () => {
  it('starts in the initial configuration and runs entry actions by name', () => {
    const start = new Simulator(setupOf(checkout)).start();
    expect(start.activePaths).toEqual(['browsing']);
    expect(start.actions).toEqual([{ type: 'trackPage' }]);
    expect(start.context).toEqual({ items: 0, note: 'plain JSON' });
  });

  it('takes a guarded transition only when the guard switch recorded with the event is on', () => {
    const off = replay(setupOf(checkout), logOf([{ type: 'CHECKOUT', guards: { hasItems: false } }]));
    expect(off.steps[1]).toMatchObject({ ignored: 'not_enabled', activePaths: ['browsing'] });
    const on = replay(setupOf(checkout), logOf([{ type: 'CHECKOUT', guards: { hasItems: true } }]));
    expect(on.steps[1]).toMatchObject({ ignored: null, activePaths: ['paying', 'paying.card'], children: ['gateway'] });
  });

  it("lists a targetless transition's actions without changing state or context", () => {
    const trace = replay(setupOf(checkout), logOf(['ADD', 'ADD']));
    expect(trace.steps[2]).toMatchObject({
      ignored: null,
      actions: [{ type: 'addItem' }],
      activePaths: ['browsing'],
      context: { items: 0 },
    });
  });

  it('keeps an event that is not enabled, marked ignored, and later ones still apply', () => {
    const trace = replay(
      setupOf(checkout),
      logOf(['SWITCH', { type: 'CHECKOUT', guards: { hasItems: true } }, 'SWITCH']),
    );
    expect(trace.steps.map((s) => s.ignored)).toEqual([null, 'not_enabled', null, null]);
    expect(trace.steps[3]?.activePaths).toEqual(['paying', 'paying.wallet']);
  });

  it("refuses XState's own event types except an actor's done and error", () => {
    const trace = replay(setupOf(checkout), logOf(['xstate.stop', 'xstate.init']));
    expect(trace.steps.slice(1).map((s) => s.ignored)).toEqual(['reserved_type', 'reserved_type']);
    expect(trace.steps[2]?.activePaths).toEqual(['browsing']);
  });
});

describe('invoked actors', () => {
  const paying = { type: 'CHECKOUT', guards: { hasItems: true } };

  it("offers the invoked actor's done and error events while it runs", () => {
    const sim = new Simulator(setupOf(checkout));
    sim.apply(logOf([paying])[0]!);
    const options = eventOptions(sim, {});
    expect(options).toEqual(
      expect.arrayContaining([
        { type: 'xstate.done.actor.gateway', enabled: true },
        { type: 'xstate.error.actor.gateway', enabled: true },
        { type: 'SWITCH', enabled: true },
        { type: 'CHECKOUT', enabled: false },
      ]),
    );
  });

  it('its done event takes onDone to a final state and ends the machine', () => {
    const end = last(checkout, [paying, { type: 'xstate.done.actor.gateway', payload: { output: { receipt: 7 } } }]);
    expect(end).toMatchObject({ activePaths: ['receipt'], done: true, children: [] });
    const after = replayToState(setupOf(checkout), logOf([paying, 'xstate.done.actor.gateway', 'BACK']));
    expect(after.ignored).toBe('machine_done');
  });

  it('its error event takes onError', () => {
    expect(last(checkout, [paying, 'xstate.error.actor.gateway']).activePaths).toEqual(['paying', 'paying.failed']);
  });
});

describe('time', () => {
  it('fires an after transition only on advance time, then always runs at once', () => {
    const trace = replay(setupOf(checkout), logOf([{ type: 'CHECKOUT', guards: { hasItems: true } }, 'time']));
    expect(trace.steps[1]).toMatchObject({ timers: 1, now: 0 });
    expect(trace.steps[2]).toMatchObject({ ignored: null, now: 5000, timers: 0, activePaths: ['browsing'] });
    expect(trace.steps[2]?.actions).toEqual([{ type: 'notifyTimeout' }, { type: 'trackPage' }]);
  });

  it('marks advance time ignored when no timer waits, and a left state cancels its timer', () => {
    const trace = replay(
      setupOf(checkout),
      logOf(['time', { type: 'CHECKOUT', guards: { hasItems: true } }, 'BACK', 'time']),
    );
    expect(trace.steps.map((s) => s.ignored)).toEqual([null, 'no_timer', null, null, 'no_timer']);
  });

  it('fires the earliest of several timers first, named delays included', () => {
    const config = {
      id: 'lights',
      type: 'parallel',
      states: {
        a: { initial: 'x', states: { x: { after: { slow: 'y' } }, y: {} } },
        b: { initial: 'x', states: { x: { after: { 200: 'y' } }, y: {} } },
      },
    };
    const trace = replay(setupOf(config), logOf(['time', 'time']));
    expect(trace.steps[1]?.activePaths).toEqual(['a', 'a.x', 'b', 'b.y']);
    expect(trace.steps[2]).toMatchObject({ activePaths: ['a', 'a.y', 'b', 'b.y'], now: 1000 });
  });
});

describe('parallel, history, final', () => {
  const player = {
    id: 'player',
    initial: 'on',
    states: {
      on: {
        type: 'parallel',
        on: { OFF: 'off' },
        onDone: 'finished',
        states: {
          track: {
            initial: 'one',
            states: { one: { on: { NEXT: 'two' } }, two: { on: { NEXT: 'end' } }, end: { type: 'final' } },
          },
          volume: {
            initial: 'low',
            states: {
              low: { on: { UP: 'high' } },
              high: {
                initial: 'plain',
                onDone: 'max',
                states: { plain: { on: { BASS: 'bass' } }, bass: { type: 'final' } },
              },
              max: { type: 'final' },
              hist: { type: 'history', history: 'deep' },
            },
          },
        },
      },
      off: { on: { RESUME: '#player.on.volume.hist', RESUME_SHALLOW: 'on' } },
      finished: {},
    },
  };

  it('keeps parallel regions active together', () => {
    expect(last(player, ['NEXT', 'UP']).activePaths).toEqual([
      'on',
      'on.track',
      'on.track.two',
      'on.volume',
      'on.volume.high',
      'on.volume.high.plain',
    ]);
  });

  it('deep history restores the nested configuration; without it a region starts over', () => {
    expect(last(player, ['NEXT', 'UP', 'OFF', 'RESUME']).activePaths).toEqual([
      'on',
      'on.track',
      'on.track.one',
      'on.volume',
      'on.volume.high',
      'on.volume.high.plain',
    ]);
    expect(last(player, ['UP', 'BASS', 'OFF', 'RESUME_SHALLOW']).activePaths).toContain('on.volume.low');
  });

  it('shallow history restores only the direct child', () => {
    const config = {
      id: 'h',
      initial: 'a',
      states: {
        a: {
          initial: 'x',
          on: { OUT: 'out' },
          states: {
            x: { on: { GO: 'y' } },
            y: { initial: 'p', states: { p: { on: { GO: 'q' } }, q: {} } },
            back: { type: 'history' },
          },
        },
        out: { on: { IN: '#h.a.back' } },
      },
    };
    expect(last(config, ['GO', 'GO', 'OUT', 'IN']).activePaths).toEqual(['a', 'a.y', 'a.y.p']);
  });

  it('a parallel state is done when every region is final, and its onDone runs', () => {
    expect(last(player, ['NEXT', 'NEXT', 'UP']).activePaths).toEqual([
      'on',
      'on.track',
      'on.track.end',
      'on.volume',
      'on.volume.high',
      'on.volume.high.plain',
    ]);
    expect(last(player, ['NEXT', 'UP', 'BASS']).activePaths).toEqual([
      'on',
      'on.track',
      'on.track.two',
      'on.volume',
      'on.volume.max',
    ]);
    expect(last(player, ['NEXT', 'NEXT', 'UP', 'BASS']).activePaths).toEqual(['finished']);
  });
});

describe('no code from a definition runs', () => {
  it('treats alert(1)-style guards, actions, context, sources and delays as names and data', () => {
    const calls: string[] = [];
    const g = globalThis as Record<string, unknown>;
    const saved = { alert: g.alert, evil: g.evil };
    g.alert = (x: unknown) => calls.push(`alert(${String(x)})`);
    g.evil = () => calls.push('evil');
    try {
      const hostile = {
        id: 'hostile',
        initial: 'a',
        context: { $expr: 'alert(1)', x: '${alert(1)}', nested: { fn: '() => alert(1)' } },
        states: {
          a: {
            entry: ['alert(1)', { type: 'evil()', params: { $expr: 'alert(1)' } }],
            invoke: { src: 'alert(1)', id: 'x', input: { $expr: 'evil()' } },
            on: {
              GO: { target: 'b', guard: 'alert(1) || true', actions: 'constructor' },
              TOSTRING: { target: 'b', guard: 'toString' },
            },
            after: { 'alert(1)': 'b' },
          },
          b: {
            exit: '__proto__',
            on: { BACK: { target: 'a', guard: { type: 'evil()', params: { code: 'alert(1)' } } } },
          },
        },
      };
      const trace = replay(
        setupOf(hostile),
        logOf([
          'TOSTRING',
          'GO',
          'time',
          { type: 'BACK', guards: { 'evil()': true } },
          { type: 'GO', guards: { 'alert(1) || true': true } },
        ]),
      );
      expect(trace.steps.map((s) => s.ignored)).toEqual([null, 'not_enabled', 'not_enabled', null, null, null]);
      expect(trace.steps[0]?.actions).toEqual([
        { type: 'alert(1)' },
        { type: 'evil()', params: { $expr: 'alert(1)' } },
      ]);
      expect(trace.steps[0]?.context).toEqual(hostile.context);
      expect(trace.steps[4]?.actions).toEqual([
        { type: '__proto__' },
        { type: 'alert(1)' },
        { type: 'evil()', params: { $expr: 'alert(1)' } },
      ]);
      expect(trace.steps[5]?.actions).toEqual([{ type: 'constructor' }]);
      expect(calls).toEqual([]);
    } finally {
      g.alert = saved.alert;
      g.evil = saved.evil;
    }
  });
});

describe('re-run on a new version', () => {
  it('marks the events that no longer apply', () => {
    const setup = setupOf(checkout);
    const log = logOf([{ type: 'CHECKOUT', guards: { hasItems: true } }, 'SWITCH', 'BACK']);
    const edited = def({
      ...checkout,
      states: {
        ...(checkout.states as object),
        paying: { initial: 'card', on: { BACK: 'browsing' }, states: { card: {} } },
      },
    });
    const rerun = rerunOnDefinition(setup, log, edited);
    if (!rerun.ok) throw new Error(rerun.refused);
    expect(rerun.marks.map((m) => m.noLongerApplies)).toEqual([false, true, false]);
    expect(rerun.trace.steps.at(-1)?.activePaths).toEqual(['browsing']);
  });
});

describe('panel helpers', () => {
  it('compares definitions whatever their key order, and reads payloads', async () => {
    const { sameJson, parsePayload } = await import('../../../src/lib/simulation/index.ts');
    expect(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(parsePayload(' ')).toEqual({ ok: true, value: {} });
    expect(parsePayload('{"n": 2}')).toEqual({ ok: true, value: { n: 2 } });
    expect(parsePayload('[1]')).toMatchObject({ ok: false });
    expect(parsePayload('{"type": "X"}')).toMatchObject({ ok: false });
    const bad = parsePayload('{oops');
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.message).toMatch(/^Not JSON/);
  });
});

describe('a chart that loops', () => {
  // Eventless transitions that re-trigger each other would loop for ever in XState; the
  // simulation's machine stops past MAX_MICROSTEPS. The step that looped ends the run
  // (no uncaught error, no hung tab), and later events are kept, marked ignored.
  const looping: Parameters<typeof setupOf>[0] = {
    id: 'loop',
    initial: 'idle',
    states: { idle: { on: { GO: 'ping' } }, ping: { always: 'pong' }, pong: { always: 'ping' } },
  };

  it('ends the run at the step that loops, and ignores the events after it', () => {
    const trace = replay(setupOf(looping), logOf(['GO', 'GO']));
    expect(trace.steps.map((s) => s.ignored)).toEqual([null, 'machine_error', 'machine_error']);
    expect(trace.steps[0]?.activePaths).toEqual(['idle']);
  });
});

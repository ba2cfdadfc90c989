import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { importText } from '../../../src/lib/convert/index.ts';
import { ACTOR_SOURCES, importTypeScript } from '../../../src/lib/convert/ts-import.ts';
import { exportXState } from '../../../src/lib/model/index.ts';

/** Machines written the ways people write them in their repositories, read as they are. */

const errors = (r: { issues: { severity: string }[] }) => r.issues.filter((i) => i.severity === 'error');

function config(text: string, fileName = 'machine.ts') {
  const r = importText(text, fileName);
  expect(errors(r)).toEqual([]);
  expect(r.definition).not.toBeNull();
  return { result: r, config: exportXState(r.definition!) };
}

describe('inline actors', () => {
  const text = `
import { createMachine, fromPromise, fromCallback } from 'xstate';
export const fetcher = createMachine({
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'fetchUser',
        src: fromPromise(async ({ input }) => (await fetch('/users/' + input.id)).json()),
        input: ({ context }) => ({ id: context.id }),
        onDone: 'ticking',
        onError: 'failed',
      },
    },
    ticking: {
      invoke: [
        { src: fromCallback(({ sendBack }) => { const t = setInterval(() => sendBack({ type: 'TICK' }), 1000); return () => clearInterval(t); }) },
        { src: userStream },
      ],
      on: { TICK: 'ticking' },
    },
    failed: {},
  },
});`;

  it('become named placeholders that keep their source, and the rest imports', () => {
    const { result, config: c } = config(text);
    const states = c.states as Record<string, { invoke?: unknown; meta?: Record<string, Record<string, string>> }>;
    expect(states.loading?.invoke).toMatchObject({ src: 'fetchUser', id: 'fetchUser', onDone: 'ticking' });
    expect(states.loading?.meta?.[ACTOR_SOURCES]?.fetchUser).toMatch(/^fromPromise\(async \(\{ input \}\)/);
    expect(states.ticking?.invoke).toMatchObject([{ src: 'ticking.fromCallback' }, { src: 'userStream' }]);
    expect(states.ticking?.meta?.[ACTOR_SOURCES]?.['ticking.fromCallback']).toContain('clearInterval(t)');
    expect(result.issues.some((i) => i.message.includes('inline actor'))).toBe(true);
  });
});

describe('.tsx files', () => {
  const text = `
import { createMachine } from 'xstate';
import { useMachine } from '@xstate/react';
const toggle = createMachine({ id: 'toggle', initial: 'off', states: { off: { on: { FLIP: 'on' } }, on: { on: { FLIP: 'off' } } } });
export function Toggle() {
  const [state, send] = useMachine(toggle);
  return <button onClick={() => send({ type: 'FLIP' })}>{state.value === 'on' ? 'On' : 'Off'}</button>;
}`;

  it('parse as TSX by the file name, and pasted text is tried as TSX', () => {
    for (const name of ['Toggle.tsx', '']) {
      const { config: c } = config(text, name);
      expect(c).toMatchObject({ id: 'toggle', states: { off: { on: { FLIP: 'on' } } } });
    }
  });

  it('a .ts file with a type assertion stays TypeScript', () => {
    const { config: c } = config(`const m = createMachine(<any>{ initial: 'a', states: { a: {} } });`, 'm.ts');
    expect(c).toMatchObject({ initial: 'a' });
  });
});

describe('XState v4 files are migrated to v5', () => {
  const text = `
import { Machine, assign } from 'xstate';
interface Ctx { count: number }
export const counter = Machine<Ctx>({
  id: 'counter',
  predictableActionArguments: true,
  schema: { context: {} as Ctx },
  context: { count: 0 },
  initial: 'active',
  states: {
    active: {
      entry: ['enter'],
      on: {
        INC: { actions: ['bump'], cond: 'belowMax' },
        RESET: { target: 'active', internal: false },
        STAY: { target: 'active', internal: true },
        '': { target: 'done', cond: (ctx) => ctx.count > 9 },
      },
      activities: ['beeping'],
    },
    done: { type: 'final', data: { ok: true } },
  },
}, { services: { load: () => Promise.resolve(1) } });`;

  it('by the migration guide, with a note listing what changed', () => {
    const { result, config: c } = config(text);
    expect(c).toMatchObject({
      id: 'counter',
      states: {
        active: {
          on: {
            INC: { actions: 'bump', guard: 'belowMax' },
            RESET: { target: 'active', reenter: true },
            STAY: 'active',
          },
          always: { target: 'done', guard: { type: 'cond' } },
          invoke: { src: 'beeping' },
        },
        done: { type: 'final', output: { ok: true } },
      },
    });
    expect(c).not.toHaveProperty('schema');
    const note = result.issues.find((i) => i.message.startsWith('migrated from XState v4 to v5'))?.message ?? '';
    for (const change of [
      'Machine() → createMachine()',
      'cond → guard (×2)',
      'internal: false → reenter: true',
      "on: { '': ... } → always",
      'activities → invoke',
      'data → output',
      'schema removed',
      'predictableActionArguments removed',
      'services → actors',
    ])
      expect(note).toContain(change);
  });

  it('a v5 createMachine file with a leftover internal: key imports, with a note', () => {
    const { result, config: c } = config(
      `createMachine({ initial: 'a', states: { a: { on: { GO: { target: 'a', internal: false, actions: ['x', 'y'] } } } } });`,
    );
    expect(c).toMatchObject({ states: { a: { on: { GO: { target: 'a', reenter: true, actions: ['x', 'y'] } } } } });
    expect(result.issues[0]?.message).toBe('migrated from XState v4 to v5: internal: false → reenter: true');
  });

  it('runs in XState v5 as the v4 author meant: internal: false re-enters', () => {
    const { config: c } = config(text);
    const entered: string[] = [];
    const machine = createMachine(c as never).provide({
      actions: { enter: () => entered.push('active') },
      guards: { belowMax: () => true, cond: () => false },
      actors: { beeping: createMachine({}) },
    });
    const actor = createActor(machine).start();
    actor.send({ type: 'STAY' });
    expect(entered).toEqual(['active']);
    actor.send({ type: 'RESET' });
    expect(entered).toEqual(['active', 'active']);
  });
});

describe('state keys and transitions the file does not define', () => {
  const imported = `
import { createMachine } from 'xstate';
import { Step, Ev } from './steps';
import { makeTransitions } from './helpers';
export const wizard = createMachine({
  initial: 'start',
  states: {
    start: { on: { NEXT: Step.Name, BACK: 'start', [Ev.Skip]: 'start' } },
    [Step.Name]: { on: { NEXT: Step.Email } },
    [Step.Email]: { initial: 'typing', states: { typing: {}, checking: {} } },
    done: { on: makeTransitions() },
  },
});`;

  it('are counted, with why, in the result and its first note: never a quiet ok', () => {
    const r = importTypeScript(imported);
    expect(r.definition).not.toBeNull();
    expect(r.leftOut).toMatchObject({ states: 4, transitions: 2, unknown: 1 });
    expect(r.leftOut?.reasons).toEqual(
      expect.arrayContaining([
        '4 state keys come from "Step", defined in another file (./steps)',
        '1 transition depend on "Step", defined in another file (./steps)',
        '1 transition depend on "Ev", defined in another file (./steps)',
      ]),
    );
    expect(r.issues[0]?.message).toMatch(/^Left out of this machine: 4 states, 2 transitions/);
    const c = exportXState(r.definition!);
    expect(Object.keys(c.states as object)).toEqual(['start', 'done']);
    expect((c.states as Record<string, { on?: object }>).start?.on).toEqual({ BACK: 'start' });
  });

  it('a history default from another file keeps the history state (its default is left out, not the state)', () => {
    const r = importTypeScript(`import { S } from './s';
createMachine({ initial: 'a', states: { a: { initial: 'x', states: { x: {}, h: { type: 'history', history: 'deep', target: S.X } } } } });`);
    expect(r.leftOut).toBeUndefined();
    expect(exportXState(r.definition!)).toMatchObject({ states: { a: { states: { h: { type: 'history' } } } } });
    expect(r.issues.some((i) => i.message.includes('S.X'))).toBe(true);
  });

  it('resolve when the file defines them: a local enum, a const object, a helper returning a literal', () => {
    const local = `
import { createMachine } from 'xstate';
enum Step { Name = 'name', Email = 'email' }
const Ev = { Skip: 'SKIP' } as const;
enum Level { Low, High }
function go(target: string, guard?: string) {
  return { target, guard };
}
const leaf = (next: string) => ({ on: { NEXT: go(next) }, meta: { level: Level.High } });
export const wizard = createMachine({
  initial: 'start',
  states: {
    start: { on: { NEXT: Step.Name, [Ev.Skip]: go(Step.Email, 'canSkip') } },
    [Step.Name]: leaf(Step.Email),
    [Step.Email]: leaf('start'),
  },
});`;
    const r = importTypeScript(local);
    expect(errors(r)).toEqual([]);
    expect(r.leftOut).toBeUndefined();
    expect(exportXState(r.definition!)).toMatchObject({
      states: {
        start: { on: { NEXT: 'name', SKIP: { target: 'email', guard: 'canSkip' } } },
        name: { on: { NEXT: 'email' }, meta: { level: 1 } },
        email: { on: { NEXT: 'start' } },
      },
    });
  });

  it("the resolved machine runs as the author's own config does in XState", () => {
    const text = `
import { createMachine } from 'xstate';
enum Door { Open = 'open', Closed = 'closed', Locked = 'locked' }
const on = (event: string, target: Door) => ({ [event]: target });
export const door = createMachine({
  initial: Door.Closed,
  states: {
    [Door.Open]: { on: on('CLOSE', Door.Closed) },
    [Door.Closed]: { on: { OPEN: Door.Open, LOCK: Door.Locked } },
    [Door.Locked]: { on: on('UNLOCK', Door.Closed) },
  },
});`;
    const authors = createMachine({
      initial: 'closed',
      states: {
        open: { on: { CLOSE: 'closed' } },
        closed: { on: { OPEN: 'open', LOCK: 'locked' } },
        locked: { on: { UNLOCK: 'closed' } },
      },
    });
    const r = importTypeScript(text);
    expect(errors(r)).toEqual([]);
    const imported = createMachine(exportXState(r.definition!) as never);
    const events = ['OPEN', 'LOCK', 'CLOSE', 'LOCK', 'OPEN', 'UNLOCK', 'OPEN'];
    const trace = (m: typeof authors) => {
      const actor = createActor(m).start();
      return events.map((type) => {
        actor.send({ type });
        return actor.getSnapshot().value;
      });
    };
    expect(trace(imported)).toEqual(trace(authors));
  });
});

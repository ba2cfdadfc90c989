import { describe, expect, it } from 'vitest';
import {
  applyOps,
  checkXStateText,
  counterIds,
  formatIssue,
  importXState,
  readXState,
  validateDefinition,
  type Issue,
  type JsonObject,
} from '../../../src/lib/model/index.ts';

const check = (config: JsonObject | string): Issue[] =>
  checkXStateText(typeof config === 'string' ? config : JSON.stringify(config, null, 2)).issues;
const lines = (issues: Issue[]): string[] => issues.map((i) => `${i.severity} ${i.path}: ${i.message}`);

describe('validation: every error the model refuses, with exact paths and messages', () => {
  it('broken JSON: line and column of the parse error', () => {
    const text = '{\n  "id": "m",\n  "states": {\n    "a": { "on": { "GO": "b" }, }\n  }\n}';
    const result = checkXStateText(text);
    expect(result.config).toBeNull();
    expect(result.definition).toBeNull();
    expect(result.issues).toEqual([
      {
        severity: 'error',
        path: '',
        message: 'invalid JSON at line 4, column 33: trailing comma before "}"',
        at: { offset: 61, end: 62, line: 4, column: 33 },
      },
    ]);
    expect(formatIssue(result.issues[0] as Issue)).toBe(
      '(machine): invalid JSON at line 4, column 33: trailing comma before "}" (line 4, column 33)',
    );
  });

  it.each([
    ['{"a": 1', 'invalid JSON at line 1, column 8: expected "," or "}" but found end of input'],
    ['{"a": "unterminated}', 'invalid JSON at line 1, column 7: unterminated string'],
    ['{"a": tru}', 'invalid JSON at line 1, column 7: unexpected "t"'],
    ['{"a": 1} x', 'invalid JSON at line 1, column 10: unexpected "x" after the end of the JSON value'],
    ['{a: 1}', 'invalid JSON at line 1, column 2: expected a quoted key but found "a"'],
    ['[1,]', 'invalid JSON at line 1, column 4: trailing comma before "]"'],
    ['', 'invalid JSON at line 1, column 1: unexpected end of input'],
  ])('broken JSON %j', (text, message) => {
    const [issue] = check(text);
    expect(issue?.message).toBe(message);
  });

  it('a parse error on a later line counts lines and columns from 1', () => {
    const [issue] = check('{\n  "id": "m",\n  "initial": 12x\n}');
    expect(issue?.at).toMatchObject({ line: 3, column: 16 });
  });

  it('duplicate keys, which JSON.parse would silently collapse', () => {
    const text = '{\n  "initial": "a",\n  "states": {\n    "a": {},\n    "a": { "on": { "X": "a", "X": "a" } }\n  }\n}';
    const result = checkXStateText(text);
    expect(lines(result.issues)).toEqual([
      'error states.a: duplicate key "a" (line 4 has it too; only one can be kept)',
      'error states.a.on.X: duplicate key "X" (line 5 has it too; only one can be kept)',
    ]);
    expect(result.issues[0]?.at).toMatchObject({ line: 5, column: 5 });
    expect(result.definition).toBeNull();
  });

  it('unknown target, by id and by path', () => {
    const issues = check({
      id: 'shop',
      initial: 'checkout',
      states: { checkout: { on: { PAY: [{ target: '#paid', guard: 'ok' }, { target: 'nowhere' }] } } },
    });
    expect(issues.map(formatIssue)).toEqual([
      'states.checkout.on.PAY[0].target: unknown target "#paid" (line 9, column 13)',
      'states.checkout.on.PAY[1].target: unknown target "nowhere" (line 13, column 13)',
    ]);
  });

  it('unknown targets in every place a target can be written', () => {
    const issues = check({
      id: 'm',
      initial: 'a',
      states: {
        a: {
          on: { 'auth.signedIn': 'zz', X: { target: ['.nope', 'b'] } },
          always: 'zz',
          after: { 1000: 'zz' },
          onDone: 'zz',
          invoke: [
            { src: 'x', onDone: 'zz' },
            { src: 'y', onError: [{ target: 'zz' }] },
          ],
        },
        b: { type: 'history', target: 'zz' },
      },
    });
    expect(lines(issues)).toEqual([
      'error states.a.on["auth.signedIn"]: unknown target "zz"',
      'error states.a.on.X.target[0]: unknown target ".nope"',
      'error states.a.after["1000"]: unknown target "zz"',
      'error states.a.always: unknown target "zz"',
      'error states.a.onDone: unknown target "zz"',
      'error states.a.invoke[0].onDone: unknown target "zz"',
      'error states.a.invoke[1].onError[0].target: unknown target "zz"',
      'error states.b.target: unknown target "zz"',
    ]);
  });

  it('a sibling target written at the root, where there are no siblings', () => {
    expect(lines(check({ id: 'm', initial: 'a', on: { X: 'a' }, states: { a: {} } }))).toEqual([
      'error on.X: unknown target "a": from the machine root write ".a" (a child) or "#id"',
    ]);
  });

  it('missing initial state on a compound state (and the root)', () => {
    expect(lines(check({ id: 'm', initial: 'a', states: { a: { states: { x: {}, y: {} } } } }))).toEqual([
      'error states.a.initial: missing initial state: compound state "a" must name one of its children in "initial"',
    ]);
    expect(lines(check({ id: 'm', states: { a: {} } }))).toEqual([
      'error initial: missing initial state: compound state "(machine)" must name one of its children in "initial"',
    ]);
  });

  it('initial that is not a child', () => {
    expect(lines(check({ id: 'm', initial: 'a', states: { a: { initial: 'z', states: { x: {} } } } }))).toEqual([
      'error states.a.initial: initial state "z" is not a child of "a"',
    ]);
    expect(lines(check({ id: 'm', initial: 'nope', states: { a: {} } }))).toEqual([
      'error initial: initial state "nope" is not a child of the machine',
    ]);
  });

  it('duplicate ids (also against the machine id)', () => {
    expect(
      lines(
        check({
          id: 'm',
          initial: 'a',
          states: { a: { id: 'same', on: { X: 'b' } }, b: { id: 'same' }, c: { id: 'm' } },
        }),
      ),
    ).toEqual([
      'error states.b.id: duplicate id "same" (also used by states.a)',
      'error states.c.id: duplicate id "m" (also used by the machine)',
      'warning states.c: state "c" is unreachable: no initial state or transition leads to it',
    ]);
  });

  it('unreachable states are warnings, reported once per unreachable subtree', () => {
    const issues = check({
      id: 'm',
      initial: 'a',
      states: {
        a: { on: { GO: 'p.r1.deep' } },
        p: {
          type: 'parallel',
          states: { r1: { initial: 'x', states: { x: {}, deep: {} } }, r2: { initial: 'y', states: { y: {}, z: {} } } },
        },
        lonely: { initial: 'inner', states: { inner: {} } },
      },
    });
    expect(lines(issues)).toEqual([
      'warning states.p.states.r1.states.x: state "p.r1.x" is unreachable: no initial state or transition leads to it',
      'warning states.p.states.r2.states.z: state "p.r2.z" is unreachable: no initial state or transition leads to it',
      'warning states.lonely: state "lonely" is unreachable: no initial state or transition leads to it',
    ]);
    expect(issues.every((i) => i.severity === 'warning')).toBe(true);
  });

  it('history state outside a compound state', () => {
    expect(
      lines(check({ id: 'm', initial: 'a', states: { a: { type: 'atomic', states: { h: { history: 'deep' } } } } })),
    ).toEqual([
      'error states.a.type: atomic state "a" cannot have child states',
      'error states.a.states.h: history state "a.h" must be inside a compound or parallel state',
      'warning states.a.states.h: state "a.h" is unreachable: no initial state or transition leads to it',
    ]);
    expect(lines(check({ type: 'history' }))).toEqual([
      'error type: history state "(machine)" must be inside a compound or parallel state',
    ]);
  });

  it('history state with transitions or children', () => {
    expect(
      lines(
        check({ id: 'm', initial: 'a', states: { a: { on: { X: 'h' } }, h: { type: 'history', on: { Y: 'a' } } } }),
      ),
    ).toEqual(['error states.h.on.Y: history state "h" cannot have transitions']);
  });

  it('parallel state with an initial state', () => {
    expect(
      lines(
        check({
          id: 'm',
          initial: 'p',
          states: { p: { type: 'parallel', initial: 'r1', states: { r1: {}, r2: {} } } },
        }),
      ),
    ).toEqual([
      'error states.p.initial: parallel state "p" cannot have an initial state (all its regions are entered together)',
    ]);
  });

  it('final state with children or transitions', () => {
    expect(
      lines(
        check({
          id: 'm',
          initial: 'done',
          states: { done: { type: 'final', states: { x: {} }, on: { AGAIN: 'done' }, after: { 5: 'done' } } },
        }),
      ),
    ).toEqual([
      'error states.done.states: final state "done" cannot have child states',
      'error states.done.on.AGAIN: final state "done" cannot have transitions',
      'error states.done.after["5"]: final state "done" cannot have transitions',
      'warning states.done.states.x: state "done.x" is unreachable: no initial state or transition leads to it',
    ]);
  });

  it('compound state without children', () => {
    expect(lines(check({ id: 'm', initial: 'a', states: { a: { type: 'compound' } } }))).toEqual([
      'error states.a: compound state "a" has no child states',
    ]);
  });

  it('XState v4 spellings and keys targets cannot express', () => {
    expect(
      lines(
        check({
          id: 'm',
          initial: 'a',
          states: { a: { on: { X: { target: 'a', cond: 'ok', internal: true } }, onEntry: 'x' }, 'b.c': {}, '#d': {} },
        }),
      ),
    ).toEqual([
      'error states.a.onEntry: "onEntry" is XState v4; use "entry"',
      'error states.a.on.X.cond: "cond" is XState v4; use "guard"',
      'error states.a.on.X.internal: "internal" is XState v4; use "reenter" (the opposite sense)',
      'error states["b.c"]: state key "b.c" must not contain "." (targets use it as a separator)',
      'error states["#d"]: state key "#d" must not start with "#" (targets use it for ids)',
    ]);
  });

  it('bad shapes and unsupported properties', () => {
    expect(
      lines(
        check({
          id: 'm',
          initial: 'a',
          wat: 1,
          states: {
            a: {
              type: 'weird',
              on: { X: 5 },
              entry: [{ params: {} }],
              tags: [1],
              invoke: { id: 'x' },
              history: 'deep',
              meta: [],
            },
            b: 'nope',
          },
        }),
      ),
    ).toEqual([
      'warning wat: unsupported property "wat" is ignored',
      'error states.a.entry[0].type: an action needs a "type" naming its implementation',
      'error states.a.tags[0]: a tag must be a string',
      'error states.a.meta: must be an object',
      'error states.a.type: unknown state type "weird" (use atomic, compound, parallel, final, history)',
      'warning states.a.history: "history" is ignored on a state of type "atomic"',
      'error states.a.on.X: a transition must be a target string, an object or an array of them',
      'error states.a.invoke.src: an invocation needs "src": the name of an actor',
      'error states.b: a state must be an object',
    ]);
  });

  it('a config that is not an object', () => {
    expect(lines(check('[1, 2]'))).toEqual(['error : the machine config must be a JSON object']);
    expect(() => importXState([1, 2])).toThrow(
      'cannot import machine config: (machine): the machine config must be a JSON object',
    );
  });

  it('definitions made by ops are validated the same way (paths in exported-config terms)', () => {
    const def = importXState({ id: 'm', initial: 'a', states: { a: {} } }, { ids: counterIds() });
    const root = def.root;
    const edited = applyOps(def, [
      { type: 'state.add', id: 's_p', parent: root, key: 'p', stateType: 'parallel', index: null },
      { type: 'state.add', id: 's_r', parent: 's_p', key: 'r', stateType: 'atomic', index: null },
      { type: 'state.setInitial', id: 's_p', initial: 's_r' },
      { type: 'state.setType', id: 's_r', stateType: 'final' },
      { type: 'state.add', id: 's_x', parent: 's_r', key: 'x', stateType: 'atomic', index: null },
      { type: 'state.update', id: 's_x', changes: { xstateId: 'dup' } },
      { type: 'state.update', id: 's_p', changes: { xstateId: 'dup' } },
    ]);
    expect(lines(validateDefinition(edited))).toEqual([
      'error states.p.initial: parallel state "p" cannot have an initial state (all its regions are entered together)',
      'error states.p.states.r.states: final state "p.r" cannot have child states',
      'error states.p.states.r.states.x.id: duplicate id "dup" (also used by states.p)',
      'warning states.p: state "p" is unreachable: no initial state or transition leads to it',
    ]);
  });

  it('readXState returns the issues and no definition when the config cannot be represented', () => {
    const { definition, issues } = readXState({ initial: 'a', states: { a: { on: { X: '#gone' } } } });
    expect(definition).toBeNull();
    expect(lines(issues)).toEqual(['error states.a.on.X: unknown target "#gone"']);
  });
});

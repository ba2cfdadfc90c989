import { counterIds, importXState, type JsonObject, type MachineDefinition } from '../../../src/lib/model/index.ts';

/** Small charts whose paths are computed by hand in the tests. */
export const def = (config: JsonObject): MachineDefinition => importXState(config, { ids: counterIds('t') });

export const payment: JsonObject = {
  id: 'pay',
  initial: 'idle',
  states: {
    idle: { on: { PAY: [{ guard: 'hasCard', target: 'paying' }, { target: 'declined' }] } },
    paying: { on: { SUCCESS: 'paid' } },
    declined: { on: { RETRY: 'idle' } },
    paid: { type: 'final' },
  },
};

export const parallel: JsonObject = {
  id: 'par',
  type: 'parallel',
  states: {
    a: { initial: 'a1', states: { a1: { on: { A: 'a2' } }, a2: {} } },
    b: { initial: 'b1', states: { b1: { on: { B: 'b2' } }, b2: {} } },
  },
};

export const history: JsonObject = {
  id: 'lamp',
  initial: 'off',
  states: {
    off: { on: { ON: 'on.hist' } },
    on: {
      initial: 'low',
      on: { OFF: 'off' },
      states: { low: { on: { UP: 'high' } }, high: {}, hist: { type: 'history' } },
    },
  },
};

export const finals: JsonObject = {
  id: 'job',
  initial: 'work',
  states: {
    work: { initial: 'a', onDone: 'done', states: { a: { on: { NEXT: 'b' } }, b: { type: 'final' } } },
    done: { type: 'final' },
  },
};

export const delayed: JsonObject = {
  id: 'timer',
  initial: 'a',
  states: { a: { after: { 1000: 'b' }, on: { SKIP: 'c' } }, b: {}, c: {} },
};

/** Four states, each reaching every other: many simple paths. */
export const clique: JsonObject = {
  id: 'k',
  initial: 's0',
  states: Object.fromEntries(
    [0, 1, 2, 3, 4].map((i) => [
      `s${i}`,
      { on: Object.fromEntries([0, 1, 2, 3, 4].filter((j) => j !== i).map((j) => [`TO${j}`, `s${j}`])) },
    ]),
  ),
};

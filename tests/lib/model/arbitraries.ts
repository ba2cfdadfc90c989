import fc from 'fast-check';
import {
  applyOp,
  importXState,
  counterIds,
  OpError,
  type ActionRef,
  type Invocation,
  type Json,
  type MachineDefinition,
  type Op,
  type StateType,
  type Transition,
  type TransitionEvent,
} from '../../../src/lib/model/index.ts';

/**
 * Random op sequences for property tests. An "intent" is a bag of random numbers and
 * choices; `toOp` reads it against the current definition (picking existing ids by
 * index), so most generated ops apply, and some (duplicate keys, cycles) are refused.
 */

const KEYS = ['idle', 'busy', 'a', 'b', 'done', 'x'];
const EVENTS = ['GO', 'STOP', 'auth.signedIn', 'a.*', '*'];
const TYPES: StateType[] = ['atomic', 'compound', 'parallel', 'final', 'history'];
const OP_KINDS = [
  'state.add',
  'state.add',
  'state.add',
  'state.delete',
  'state.rename',
  'state.move',
  'state.setType',
  'state.setInitial',
  'state.update',
  'transition.add',
  'transition.add',
  'transition.update',
  'transition.retarget',
  'transition.delete',
  'machine.update',
] as const;

const json: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.string({ maxLength: 6 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('k', 'n', 'deep'), fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxKeys: 2 }),
);
const jsonObject = fc.dictionary(fc.constantFrom('color', 'x', 'y', 'note'), json, { maxKeys: 3 });

export const intent = fc.record({
  kind: fc.constantFrom(...OP_KINDS),
  n: fc.array(fc.nat(1000), { minLength: 8, maxLength: 8 }),
  key: fc.constantFrom(...KEYS),
  stateType: fc.constantFrom(...TYPES),
  event: fc.constantFrom(...EVENTS),
  name: fc.constantFrom('track', 'save', 'notify', 'isReady'),
  params: fc.option(json, { nil: undefined }),
  text: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
  meta: fc.option(jsonObject, { nil: null }),
  flag: fc.boolean(),
  order: fc.oneof(
    fc.integer({ min: -5, max: 20 }),
    fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
  ),
});
export type Intent = typeof intent extends fc.Arbitrary<infer T> ? T : never;

function pick<T>(list: readonly T[], n: number | undefined): T | undefined {
  return list.length === 0 ? undefined : list[(n ?? 0) % list.length];
}

function ref(i: Intent, k: number): ActionRef {
  const type = `${i.name}${k}`;
  return i.params === undefined || k % 2 === 1 ? { type } : { type, params: i.params };
}

function event(def: MachineDefinition, source: string, i: Intent): TransitionEvent {
  const invocations = def.states[source]?.invoke ?? [];
  switch ((i.n[5] ?? 0) % 6) {
    case 0:
      return { always: true };
    case 1:
      return { after: (i.n[6] ?? 0) % 3 === 0 ? 'slowDelay' : (i.n[6] ?? 0) * 10 };
    case 2:
      return { done: true };
    case 3: {
      const inv = pick(invocations, i.n[6]);
      if (inv) return { invoke: inv.uid, outcome: pick(['done', 'error', 'snapshot'] as const, i.n[7]) ?? 'done' };
      return i.event;
    }
    default:
      return i.event;
  }
}

export function toOp(
  def: MachineDefinition,
  i: Intent,
  fresh: (kind: 'state' | 'transition' | 'invocation') => string,
): Op | null {
  const states = Object.keys(def.states).sort();
  const nonRoot = states.filter((s) => s !== def.root);
  const transitions = Object.keys(def.transitions).sort();
  const [n0 = 0, n1 = 0, n2 = 0, n3 = 0, n4 = 0] = i.n;
  const anyState = pick(states, n0) as string;
  switch (i.kind) {
    case 'state.add': {
      const parent = pick(states, n0) as string;
      const len = def.states[parent]?.children.length ?? 0;
      return {
        type: 'state.add',
        id: fresh('state'),
        parent,
        key: i.key,
        stateType: i.stateType,
        index: n1 % 3 === 0 ? null : n2 % (len + 1),
      };
    }
    case 'state.delete': {
      const id = pick(nonRoot, n0);
      return id === undefined ? null : { type: 'state.delete', id };
    }
    case 'state.rename': {
      const id = pick(nonRoot, n0);
      return id === undefined ? null : { type: 'state.rename', id, key: i.key };
    }
    case 'state.move': {
      const id = pick(nonRoot, n0);
      const parent = pick(states, n1) as string;
      if (id === undefined) return null;
      return { type: 'state.move', id, parent, index: n2 % ((def.states[parent]?.children.length ?? 0) + 1) };
    }
    case 'state.setType':
      return { type: 'state.setType', id: anyState, stateType: i.stateType };
    case 'state.setInitial': {
      const children = def.states[anyState]?.children ?? [];
      return { type: 'state.setInitial', id: anyState, initial: n1 % 4 === 0 ? null : (pick(children, n2) ?? null) };
    }
    case 'state.update': {
      const node = def.states[anyState];
      if (!node) return null;
      const changes: Extract<Op, { type: 'state.update' }>['changes'] = {};
      const fields = n1;
      if (fields & 1) changes.entry = Array.from({ length: n2 % 3 }, (_, k) => ref(i, k));
      if (fields & 2) changes.exit = Array.from({ length: n3 % 3 }, (_, k) => ref(i, k + 1));
      if (fields & 4) {
        // Keep the invocations transitions use; add or drop the rest.
        const used = new Set(
          Object.values(def.transitions).flatMap((t) =>
            t.source === node.id && typeof t.event === 'object' && 'invoke' in t.event ? [t.event.invoke] : [],
          ),
        );
        const kept = node.invoke.filter((inv) => used.has(inv.uid) || i.flag);
        const extra: Invocation = { uid: fresh('invocation'), src: `${i.name}Actor` };
        if (n4 % 2 === 0) extra.id = `child${n4}`;
        if (n4 % 3 === 0) extra.input = i.params ?? null;
        if (n4 % 5 === 0) extra.systemId = `sys${n4}`;
        changes.invoke = n2 % 2 === 0 ? [...kept, extra] : kept;
      }
      if (fields & 8) changes.tags = i.flag ? ['busy', i.key] : [];
      if (fields & 16) changes.description = i.text;
      if (fields & 32) changes.meta = i.meta;
      if (fields & 64) changes.xstateId = i.flag ? `id_${node.id}` : null;
      if (fields & 128) changes.output = i.params === undefined ? null : { value: i.params };
      if (fields & 256) changes.history = i.flag ? 'deep' : 'shallow';
      if (fields & 512) changes.historyTarget = n3 % 3 === 0 ? null : (pick(states, n3) ?? null);
      return { type: 'state.update', id: node.id, changes };
    }
    case 'transition.add': {
      const source = anyState;
      const targets = [
        ...new Set([pick(states, n1), pick(states, n2)].slice(0, n3 % 3).filter((x): x is string => x !== undefined)),
      ];
      const t: Transition = {
        id: fresh('transition'),
        source,
        event: event(def, source, i),
        guard: i.flag ? { type: 'isReady' } : null,
        actions: Array.from({ length: n4 % 3 }, (_, k) => ref(i, k)),
        targets,
        reenter: i.flag && n4 % 2 === 0,
        description: i.text,
        meta: i.meta,
        order: i.order,
      };
      return { type: 'transition.add', transition: t };
    }
    case 'transition.update': {
      const id = pick(transitions, n0);
      const t = id === undefined ? undefined : def.transitions[id];
      if (!t) return null;
      const changes: Extract<Op, { type: 'transition.update' }>['changes'] = {};
      if (n1 & 1) changes.event = event(def, t.source, i);
      if (n1 & 2) changes.guard = i.flag ? { type: 'isReady', params: { strict: true } } : null;
      if (n1 & 4) changes.actions = Array.from({ length: n2 % 3 }, (_, k) => ref(i, k));
      if (n1 & 8) changes.reenter = i.flag;
      if (n1 & 16) changes.description = i.text;
      if (n1 & 32) changes.meta = i.meta;
      if (n1 & 64) changes.order = i.order;
      return { type: 'transition.update', id: t.id, changes };
    }
    case 'transition.retarget': {
      const id = pick(transitions, n0);
      if (id === undefined) return null;
      const targets = [
        ...new Set([pick(states, n1), pick(states, n2)].slice(0, n3 % 3).filter((x): x is string => x !== undefined)),
      ];
      const op: Op = { type: 'transition.retarget', id, targets };
      if (n4 % 3 === 0) op.source = anyState;
      return op;
    }
    case 'transition.delete': {
      const id = pick(transitions, n0);
      return id === undefined ? null : { type: 'transition.delete', id };
    }
    case 'machine.update':
      return {
        type: 'machine.update',
        changes: n1 % 2 === 0 ? { name: i.key } : { machineId: i.flag ? 'm' : null, context: i.meta },
      };
  }
}

export function baseDefinition(): MachineDefinition {
  return importXState(
    { id: 'm', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } },
    { ids: counterIds('base') },
  );
}

/** A definition built by applying the intents that apply (refused ones are skipped). */
export function buildDefinition(intents: Intent[], seed = 'g'): MachineDefinition {
  const fresh = counterIds(seed);
  let def = baseDefinition();
  for (const i of intents) {
    const op = toOp(def, i, fresh);
    if (op === null) continue;
    try {
      def = applyOp(def, op);
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
    }
  }
  return def;
}

/**
 * Ops that each apply to what the previous ones made, from random intents (refused ones are
 * skipped). With `replaceWith`, an intent whose `flag` is set and whose first number is a
 * multiple of 9 becomes a `machine.replace` with it, so runs also start over in the middle.
 */
export function opsFrom(
  def: MachineDefinition,
  intents: Intent[],
  seed = 'run',
  replaceWith?: MachineDefinition,
): Op[] {
  const fresh = counterIds(seed);
  const ops: Op[] = [];
  let current = def;
  for (const i of intents) {
    const replace = replaceWith !== undefined && i.flag && (i.n[0] ?? 0) % 9 === 0;
    const op: Op | null = replace ? { type: 'machine.replace', definition: replaceWith } : toOp(current, i, fresh);
    if (op === null) continue;
    try {
      current = applyOp(current, op);
      ops.push(op);
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
    }
  }
  return ops;
}

/** Deep-freezes a value: any later write to it throws (the tests run in strict mode). */
export function freeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) freeze(v);
  }
  return value;
}

export const definition = fc
  .array(intent, { minLength: 0, maxLength: 80, size: 'medium' })
  .map((intents) => buildDefinition(intents));

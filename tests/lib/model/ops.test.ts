import { describe, expect, it } from 'vitest';
import {
  applyOp,
  applyOps,
  canApply,
  counterIds,
  exportXState,
  importXState,
  invert,
  OpError,
  replayOps,
  stateAtPath,
  type MachineDefinition,
  type Op,
  type OpErrorCode,
} from '../../../src/lib/model/index.ts';
import { fixtures } from './helpers.ts';

function load(name: string): MachineDefinition {
  const fixture = fixtures().find((f) => f.name === name);
  if (!fixture) throw new Error(`no fixture ${name}`);
  return importXState(fixture.config, { ids: counterIds() });
}

function at(def: MachineDefinition, path: string): string {
  const id = stateAtPath(def, path);
  if (id === null) throw new Error(`no state at ${path}`);
  return id;
}

function refused(def: MachineDefinition, op: Op): OpErrorCode {
  try {
    applyOp(def, op);
  } catch (err) {
    if (err instanceof OpError) return err.code;
    throw err;
  }
  throw new Error('op applied');
}

/** Apply, then check the inverse restores exactly; returns the edited definition. */
function roundTrip(def: MachineDefinition, op: Op): MachineDefinition {
  const after = applyOp(def, op);
  expect(applyOps(after, invert(def, op))).toStrictEqual(def);
  return after;
}

describe('state ops', () => {
  const checkout = load('checkout.json');

  it('add: a new state among siblings at an index, exported in that order', () => {
    const root = checkout.root;
    const after = roundTrip(checkout, {
      type: 'state.add',
      id: 's_new',
      parent: root,
      key: 'review',
      stateType: 'atomic',
      index: 2,
    });
    expect(Object.keys(exportXState(after).states as object)).toEqual([
      'cart',
      'shipping',
      'review',
      'payment',
      'confirmed',
      'failed',
    ]);
    expect(after.states.s_new).toMatchObject({ key: 'review', parent: root, type: 'atomic', children: [] });
    expect(
      refused(checkout, {
        type: 'state.add',
        id: 's_new',
        parent: root,
        key: 'cart',
        stateType: 'atomic',
        index: null,
      }),
    ).toBe('duplicate_key');
    expect(
      refused(checkout, {
        type: 'state.add',
        id: at(checkout, 'cart'),
        parent: root,
        key: 'x',
        stateType: 'atomic',
        index: null,
      }),
    ).toBe('duplicate_id');
    expect(
      refused(checkout, { type: 'state.add', id: 's_x', parent: 's_gone', key: 'x', stateType: 'atomic', index: null }),
    ).toBe('unknown_state');
    expect(
      refused(checkout, { type: 'state.add', id: 's_x', parent: root, key: 'a.b', stateType: 'atomic', index: null }),
    ).toBe('invalid_key');
    expect(
      refused(checkout, { type: 'state.add', id: 's_x', parent: root, key: '#a', stateType: 'atomic', index: null }),
    ).toBe('invalid_key');
    expect(
      refused(checkout, { type: 'state.add', id: 's_x', parent: root, key: 'x', stateType: 'atomic', index: 99 }),
    ).toBe('bad_index');
  });

  it('delete: removes the subtree and every transition touching it; the inverse restores all of it', () => {
    const payment = at(checkout, 'payment');
    const after = roundTrip(checkout, { type: 'state.delete', id: payment });
    expect(stateAtPath(after, 'payment')).toBeNull();
    expect(stateAtPath(after, 'payment.processing')).toBeNull();
    const cfg = exportXState(after);
    // shipping -> payment is gone with it; shipping's other transition stays.
    expect((cfg.states as Record<string, unknown>).shipping).toEqual({
      description: 'Where the order goes.',
      on: { back: 'cart' },
    });
    expect(refused(checkout, { type: 'state.delete', id: checkout.root })).toBe('root');
  });

  it("delete of a parent's initial state clears it and the inverse sets it again", () => {
    const cart = at(checkout, 'cart');
    const after = roundTrip(checkout, { type: 'state.delete', id: cart });
    expect(after.states[checkout.root]?.initial).toBeNull();
  });

  it('delete clears history targets that pointed into the subtree; undo restores them', () => {
    const player = load('media-player.json');
    const after = roundTrip(player, { type: 'state.delete', id: at(player, 'active.paused') });
    expect(after.states[at(player, 'active.resume')]?.historyTarget).toBeNull();
  });

  it('rename keeps the id and every reference; targets follow', () => {
    const shipping = at(checkout, 'shipping');
    const after = roundTrip(checkout, { type: 'state.rename', id: shipping, key: 'delivery' });
    expect(after.states[shipping]?.key).toBe('delivery');
    const states = exportXState(after).states as Record<string, { on?: Record<string, unknown> }>;
    expect(states.cart?.on?.['checkout.start']).toEqual([
      { target: 'delivery', guard: 'cartHasItems' },
      { actions: 'explainEmptyCart' },
    ]);
    expect(refused(checkout, { type: 'state.rename', id: shipping, key: 'cart' })).toBe('duplicate_key');
    expect(refused(checkout, { type: 'state.rename', id: checkout.root, key: 'x' })).toBe('root');
  });

  it('move reparents and reorders; targets are rewritten to still reach the same state', () => {
    const processing = at(checkout, 'payment.processing');
    const after = roundTrip(checkout, { type: 'state.move', id: processing, parent: checkout.root, index: 0 });
    const cfg = exportXState(after);
    expect(Object.keys(cfg.states as object)).toEqual([
      'processing',
      'cart',
      'shipping',
      'payment',
      'confirmed',
      'failed',
    ]);
    const choosing = ((cfg.states as Record<string, { states?: Record<string, unknown> }>).payment?.states ?? {})
      .choosing;
    expect(choosing).toEqual({ on: { PAY: '#checkout.processing' } });
    // reorder among the same siblings
    const cart = at(checkout, 'cart');
    const reordered = roundTrip(checkout, { type: 'state.move', id: cart, parent: checkout.root, index: 4 });
    expect(Object.keys(exportXState(reordered).states as object)).toEqual([
      'shipping',
      'payment',
      'confirmed',
      'failed',
      'cart',
    ]);
  });

  it('move refuses cycles, key clashes and the root', () => {
    const payment = at(checkout, 'payment');
    expect(
      refused(checkout, { type: 'state.move', id: payment, parent: at(checkout, 'payment.choosing'), index: 0 }),
    ).toBe('cycle');
    expect(refused(checkout, { type: 'state.move', id: payment, parent: payment, index: 0 })).toBe('cycle');
    const withClash = applyOp(checkout, {
      type: 'state.add',
      id: 's_c',
      parent: payment,
      key: 'cart',
      stateType: 'atomic',
      index: null,
    });
    expect(refused(withClash, { type: 'state.move', id: 's_c', parent: checkout.root, index: 0 })).toBe(
      'duplicate_key',
    );
    expect(refused(checkout, { type: 'state.move', id: checkout.root, parent: payment, index: 0 })).toBe('root');
  });

  it("moving a parent's initial child away clears the initial; the inverse restores it", () => {
    const choosing = at(checkout, 'payment.choosing');
    const after = roundTrip(checkout, { type: 'state.move', id: choosing, parent: checkout.root, index: 0 });
    expect(after.states[at(checkout, 'payment')]?.initial).toBeNull();
  });

  it('setType, setInitial and update', () => {
    const payment = at(checkout, 'payment');
    roundTrip(checkout, { type: 'state.setType', id: payment, stateType: 'parallel' });
    const processing = at(checkout, 'payment.processing');
    const after = roundTrip(checkout, { type: 'state.setInitial', id: payment, initial: processing });
    expect(exportXState(after).states).toMatchObject({ payment: { initial: 'processing' } });
    expect(refused(checkout, { type: 'state.setInitial', id: payment, initial: at(checkout, 'cart') })).toBe(
      'not_a_child',
    );
    const updated = roundTrip(checkout, {
      type: 'state.update',
      id: processing,
      changes: {
        entry: [{ type: 'startSpinner' }],
        exit: [{ type: 'stop', params: { fast: true } }],
        tags: ['busy', 'paying'],
        description: 'Charging',
        meta: { color: 'blue' },
      },
    });
    expect(exportXState(updated).states).toMatchObject({
      payment: {
        states: {
          processing: {
            entry: 'startSpinner',
            exit: { type: 'stop', params: { fast: true } },
            tags: ['busy', 'paying'],
            description: 'Charging',
            meta: { color: 'blue' },
          },
        },
      },
    });
    expect(refused(checkout, { type: 'state.update', id: processing, changes: { invoke: [] } })).toBe('in_use');
    expect(refused(checkout, { type: 'state.update', id: processing, changes: { bogus: 1 } as never })).toBe('invalid');
    expect(refused(checkout, { type: 'state.update', id: processing, changes: { description: undefined } })).toBe(
      'invalid',
    );
  });
});

describe('transition ops', () => {
  const checkout = load('checkout.json');
  const pay = Object.values(checkout.transitions).find((t) => t.event === 'PAY');
  if (!pay) throw new Error('no PAY transition');

  it('add, edit (event, guard, actions, description, reenter) and delete, each undone exactly', () => {
    const cart = at(checkout, 'cart');
    const added = roundTrip(checkout, {
      type: 'transition.add',
      transition: {
        id: 't_x',
        source: cart,
        event: { after: 'idleTimeout' },
        guard: { type: 'isIdle' },
        actions: [],
        targets: [at(checkout, 'failed')],
        reenter: false,
        description: null,
        meta: null,
        order: 10,
      },
    });
    expect(exportXState(added).states).toMatchObject({
      cart: { after: { idleTimeout: { target: 'failed', guard: 'isIdle' } } },
    });
    const edited = roundTrip(checkout, {
      type: 'transition.update',
      id: pay.id,
      changes: {
        event: 'PAY_NOW',
        guard: { type: 'hasCard', params: { brand: 'visa' } },
        actions: [{ type: 'log' }],
        description: 'Pay',
        reenter: true,
      },
    });
    expect(exportXState(edited).states).toMatchObject({
      payment: {
        states: {
          choosing: {
            on: {
              PAY_NOW: {
                target: 'processing',
                guard: { type: 'hasCard', params: { brand: 'visa' } },
                actions: 'log',
                reenter: true,
                description: 'Pay',
              },
            },
          },
        },
      },
    });
    roundTrip(checkout, { type: 'transition.delete', id: pay.id });
    expect(refused(checkout, { type: 'transition.delete', id: 't_gone' })).toBe('unknown_transition');
    expect(
      refused(checkout, {
        type: 'transition.update',
        id: pay.id,
        changes: { event: { invoke: 'i_nope', outcome: 'done' } },
      }),
    ).toBe('unknown_invocation');
    expect(refused(checkout, { type: 'transition.update', id: pay.id, changes: { event: { after: '100' } } })).toBe(
      'invalid',
    );
  });

  it('retarget to several targets, to none (targetless), and from another source', () => {
    const multi = roundTrip(checkout, {
      type: 'transition.retarget',
      id: pay.id,
      targets: [at(checkout, 'confirmed'), at(checkout, 'failed')],
    });
    expect(exportXState(multi).states).toMatchObject({
      payment: { states: { choosing: { on: { PAY: { target: ['#checkout.confirmed', '#failed'] } } } } },
    });
    const none = roundTrip(checkout, { type: 'transition.retarget', id: pay.id, targets: [] });
    expect(exportXState(none).states).toMatchObject({ payment: { states: { choosing: { on: { PAY: {} } } } } });
    const moved = roundTrip(checkout, {
      type: 'transition.retarget',
      id: pay.id,
      targets: [pay.targets[0] as string],
      source: at(checkout, 'shipping'),
    });
    expect(exportXState(moved).states).toMatchObject({ shipping: { on: { PAY: 'payment.processing' } } });
    expect(refused(checkout, { type: 'transition.retarget', id: pay.id, targets: ['s_gone'] })).toBe('unknown_state');
  });

  it('machine.update renames the machine; #ids follow', () => {
    const after = roundTrip(checkout, {
      type: 'machine.update',
      changes: { machineId: 'shop', name: 'Shop', context: null },
    });
    expect(after.name).toBe('Shop');
    expect(exportXState(after)).toMatchObject({
      id: 'shop',
      states: { payment: { states: { processing: { invoke: { onDone: { target: '#shop.confirmed' } } } } } },
    });
  });
});

describe('replaying pending ops on a newer definition (stable ids)', () => {
  it('keeps a rename whose state moved meanwhile, drops one whose state was deleted', () => {
    const checkout = load('checkout.json');
    const shipping = at(checkout, 'shipping');
    const cart = at(checkout, 'cart');
    const mine: Op[] = [
      { type: 'state.rename', id: shipping, key: 'delivery' },
      { type: 'state.update', id: cart, changes: { description: 'The basket' } },
    ];
    // Someone else moved shipping into payment and deleted cart.
    const theirs = applyOps(checkout, [
      { type: 'state.move', id: shipping, parent: at(checkout, 'payment'), index: 0 },
      { type: 'state.delete', id: cart },
    ]);
    expect(canApply(theirs, mine[0] as Op)).toBe(true);
    expect(canApply(theirs, mine[1] as Op)).toBe(false);
    const { definition, kept, dropped } = replayOps(theirs, mine);
    expect(kept).toEqual([mine[0]]);
    expect(dropped.map((d) => d.error.code)).toEqual(['unknown_state']);
    expect(stateAtPath(definition, 'payment.delivery')).toBe(shipping);
  });
});

import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import { fakeOpenMachine, OPEN_INPUT } from './open-machine.fakes.ts';

const checkout = importXState(
  { id: 'checkout', initial: 'cart', states: { cart: { on: { PAY: 'paid' } }, paid: {} } },
  { ids: counterIds('c') },
);
const cartId = Object.values(checkout.states).find((s) => s.key === 'cart')?.id ?? '';

function start(input = OPEN_INPUT) {
  const fake = fakeOpenMachine();
  const actor = createActor(fake.logic, { input }).start();
  const child = <K extends 'document' | 'canvas'>(id: K) => actor.getSnapshot().children[id];
  child('document')?.send({ type: 'test.load', definition: checkout } as never);
  return { ...fake, actor, child };
}

describe('open machine', () => {
  it('lays out every new definition the document shows, once', () => {
    const { told, child } = start();
    expect(told.layout).toEqual([{ type: 'layout.request', definition: checkout }]);
    child('document')?.send({ type: 'test.load', definition: checkout } as never);
    expect(told.layout).toHaveLength(1);
  });

  it("turns the canvas's gestures into ops for the document, and shares the selection", () => {
    const { told, child } = start();
    const canvas = child('canvas');
    canvas?.send({ type: 'canvas.select', id: cartId, additive: false });
    expect(told.presence.at(-1)).toEqual({ type: 'presence.select', selection: [cartId] });
    canvas?.send({ type: 'canvas.renameStart', id: cartId });
    canvas?.send({ type: 'canvas.renameCommit', key: 'basket' });
    expect(told.document.at(-1)).toEqual({
      type: 'doc.edit',
      ops: [{ type: 'state.rename', id: cartId, key: 'basket' }],
    });
  });

  it('sends a replaced definition as the ops between the two, and nothing for a viewer', () => {
    const { told, actor } = start();
    const renamed = {
      ...checkout,
      states: { ...checkout.states, [cartId]: { ...checkout.states[cartId]!, key: 'trolley' } },
    };
    actor.send({ type: 'machine.replace', definition: renamed });
    expect(told.document.at(-1)).toMatchObject({ type: 'doc.edit' });
    const edits = told.document.length;
    actor.send({ type: 'machine.editableChanged', canEdit: false });
    expect(actor.getSnapshot().children.canvas?.getSnapshot().context.canEdit).toBe(false);
    actor.send({ type: 'machine.replace', definition: checkout });
    expect(told.document).toHaveLength(edits);
  });
  it("lays out the view's collapsed compounds closed, once per change; big charts start with their deeper ones closed", () => {
    const { told, actor } = start();
    const before = told.layout.length;
    // The same set as shown (nothing collapsed in a small chart) asks for nothing.
    actor.send({ type: 'machine.viewChanged', collapsed: [] });
    expect(told.layout).toHaveLength(before);
    const root = checkout.root;
    actor.send({ type: 'machine.viewChanged', collapsed: [root] });
    // A changed set asks again (the root itself never collapses, so all of it shows).
    expect(told.layout).toHaveLength(before + 1);

    const big = generateChart(300);
    const bigOne = start();
    bigOne.child('document')?.send({ type: 'test.load', definition: big } as never);
    const first = bigOne.told.layout.at(-1) as unknown as { definition: typeof big };
    expect(Object.keys(first.definition.states).length).toBeLessThan(Object.keys(big.states).length);
    bigOne.actor.send({ type: 'machine.viewChanged', collapsed: [] });
    const open = bigOne.told.layout.at(-1) as unknown as { definition: typeof big };
    expect(open.definition).toBe(big);
  });
});

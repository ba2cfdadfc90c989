import { describe, expect, it } from 'vitest';
import { overviewKey } from '../../src/lib/layout/collapse.ts';
import { fitViewport } from '../../src/lib/layout/fit.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import type { Layout } from '../../src/lib/layout/types.ts';
import { cartId, checkout, startOpen } from './open-machine.fakes.ts';

const start = startOpen;

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
  it("lays out the view's choices over the collapsed compounds, once per change; big charts start with their deeper ones closed", () => {
    const { told, actor } = start();
    const before = told.layout.length;
    // Choices that show the same (nothing collapsed in a small chart; the root never collapses) ask for nothing.
    actor.send({ type: 'machine.viewChanged', opened: [], closed: [] });
    actor.send({ type: 'machine.viewChanged', opened: [], closed: [checkout.root] });
    expect(told.layout).toHaveLength(before);

    const big = generateChart(300);
    const bigOne = start();
    bigOne.child('document')?.send({ type: 'test.load', definition: big } as never);
    const first = bigOne.told.layout.at(-1) as unknown as { definition: typeof big };
    expect(Object.keys(first.definition.states).length).toBeLessThan(Object.keys(big.states).length);
    const closedOne = [...Object.keys(first.definition.states)].find(
      (id) =>
        id !== big.root && (big.states[id]?.children.length ?? 0) > 0 && first.definition.states[id]?.children.length,
    );
    const opened = Object.keys(big.states).filter((id) => (big.states[id]?.children.length ?? 0) > 0);
    bigOne.actor.send({ type: 'machine.viewChanged', opened, closed: [] });
    const open = bigOne.told.layout.at(-1) as unknown as { definition: typeof big };
    expect(open.definition).toBe(big);
    expect(closedOne).toBeDefined();
    if (!closedOne) return;
    bigOne.actor.send({
      type: 'machine.viewChanged',
      opened: opened.filter((id) => id !== closedOne),
      closed: [closedOne],
    });
    const closed = bigOne.told.layout.at(-1) as unknown as { definition: typeof big };
    expect(closed.definition.states[closedOne]?.children).toEqual([]);
  });

  it('a chart that grows big is laid out collapsed at once, even after the view has said its choices', () => {
    // The view told its (empty) choices for the small chart; the pasted big one must not be laid out whole first.
    const { told, actor, child } = start();
    actor.send({ type: 'machine.viewChanged', opened: [], closed: [] });
    const big = generateChart(1000);
    child('document')?.send({ type: 'test.load', definition: big } as never);
    const asked = told.layout.at(-1) as unknown as { definition: typeof big };
    expect(Object.keys(asked.definition.states).length).toBeLessThan(100);
  });

  it('does not lay out again a definition that shows the same (a rebase, an acknowledged batch, an edit out of sight)', () => {
    const { told, child } = start();
    const before = told.layout.length;
    child('document')?.send({ type: 'test.load', definition: structuredClone(checkout) } as never);
    expect(told.layout).toHaveLength(before);
    const renamed = {
      ...checkout,
      states: { ...checkout.states, [cartId]: { ...checkout.states[cartId]!, key: 'trolley' } },
    };
    child('document')?.send({ type: 'test.load', definition: renamed } as never);
    expect(told.layout).toHaveLength(before + 1);
  });

  it("does not lay out again a definition read back with its keys in the server's order (the sender laid out its own big paste twice)", () => {
    const { told, child } = start();
    const before = told.layout.length;
    // jsonb orders an object's keys shorter first: the echo of this tab's own edit comes back so.
    const reorder = (v: unknown): unknown =>
      v === null || typeof v !== 'object' || Array.isArray(v)
        ? v
        : Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : 1))
              .map(([k, x]) => [k, reorder(x)]),
          );
    const echoed = reorder(checkout) as typeof checkout;
    expect(JSON.stringify(echoed)).not.toBe(JSON.stringify(checkout));
    child('document')?.send({ type: 'test.load', definition: echoed } as never);
    expect(told.layout).toHaveLength(before);
  });

  it("tells the canvas each new layout with Fit's overview for the pane, once, and the canvas fits it", () => {
    const { actor, child } = start();
    const big = generateChart(300);
    child('document')?.send({ type: 'test.load', definition: big } as never);
    // The canvas measures the pane and tells the open machine its choice (with the pane).
    child('canvas')?.send({ type: 'canvas.paneSized', width: 640, height: 480 });
    const layout: Layout = { nodes: {}, edges: {}, width: 2000, height: 1500 };
    child('layout')?.send({ type: 'test.laidOut', layout } as never);
    const canvas = () => actor.getSnapshot().children.canvas?.getSnapshot().context;
    const overview = overviewKey(big, { width: 640, height: 480 });
    expect(overview).not.toBe('');
    expect(canvas()?.fit.shown).toEqual({ layout, overview });
    expect(canvas()?.viewport).toEqual(fitViewport({ x: 0, y: 0, width: 2000, height: 1500 }, 640, 480));
  });
});

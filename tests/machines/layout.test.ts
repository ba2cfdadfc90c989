import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, waitFor } from 'xstate';
import { layoutMachine } from '../../machines/open-machine/layout.machine.ts';
import { estimateText, layoutDefinition } from '../../src/lib/layout/index.ts';
import { applyOps, counterIds, importXState, type MachineDefinition } from '../../src/lib/model/index.ts';
import type { LayoutRequest, LayoutResult } from '../../src/lib/ports/layout.ts';
import { layoutLogic } from '../../src/app/layout.ts';

const base = importXState(
  { id: 'm', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } },
  { ids: counterIds('m') },
);
const withC = (d: MachineDefinition, key: string): MachineDefinition =>
  applyOps(d, [{ type: 'state.add', id: `s_${key}`, parent: d.root, key, stateType: 'atomic', index: null }]);

/** A layout engine we settle by hand, recording what it was asked; `closed` counts teardowns. */
function controlled() {
  const calls: { request: LayoutRequest; resolve: (r: LayoutResult) => void }[] = [];
  const engines = { started: 0, closed: 0 };
  const logic = layoutLogic(() => {
    engines.started += 1;
    return {
      port: (request) => new Promise<LayoutResult>((resolve) => calls.push({ request, resolve })),
      close: () => (engines.closed += 1),
    };
  });
  return { logic, calls, engines };
}

const empty = (def: MachineDefinition): LayoutResult => ({
  ok: true,
  layout: {
    nodes: Object.fromEntries(
      Object.keys(def.states).map((id) => [
        id,
        {
          id,
          parent: null,
          key: id,
          type: 'atomic',
          depth: 0,
          region: false,
          history: null,
          initial: null,
          header: 0,
          x: 1,
          y: 2,
          width: 3,
          height: 4,
        },
      ]),
    ),
    edges: {},
    width: 10,
    height: 10,
  },
});

describe('layout machine', () => {
  it('lays out with real ELK and stores the layout', async () => {
    const elk = new ELK();
    const logic = layoutLogic(() => ({
      port: async (request) => ({
        ok: true,
        layout: await layoutDefinition(elk, request.definition, estimateText, request.hints),
      }),
      close: () => undefined,
    }));
    const actor = createActor(logic).start();
    actor.send({ type: 'layout.request', definition: base });
    const done = await waitFor(actor, (s) => s.matches('idle') && s.context.layout !== null, { timeout: 20_000 });
    expect(Object.keys(done.context.layout?.nodes ?? {})).toHaveLength(3);
    expect(done.context.laidOut).toBe(base);
  });

  it('collapses requests that arrive mid-layout into one, and passes the previous layout as hints', async () => {
    const { logic, calls } = controlled();
    const actor = createActor(logic).start();
    actor.send({ type: 'layout.request', definition: base });
    const c1 = withC(base, 'c');
    const c2 = withC(c1, 'd');
    actor.send({ type: 'layout.request', definition: c1 });
    actor.send({ type: 'layout.request', definition: c2 });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.request.hints).toBeNull();
    calls[0]?.resolve(empty(base));
    await Promise.resolve();
    await waitFor(actor, () => calls.length === 2);
    expect(calls[1]?.request.definition).toBe(c2);
    expect(calls[1]?.request.hints?.positions[base.root]).toEqual({ x: 1, y: 2 });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    calls[1]?.resolve(empty(c2));
    const s = await waitFor(actor, (x) => x.matches('idle'));
    expect(s.context.laidOut).toBe(c2);
    // The same definition again is not laid out twice.
    actor.send({ type: 'layout.request', definition: c2 });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
  });

  it("remembers the pane's shape without laying out, and sends it with the next request", async () => {
    const { logic, calls } = controlled();
    const actor = createActor(logic).start();
    actor.send({ type: 'layout.paneSized', aspect: 1.25 });
    expect(calls).toHaveLength(0);
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    // A nonsense shape (a pane not measured yet) is ignored.
    actor.send({ type: 'layout.paneSized', aspect: 0 });
    actor.send({ type: 'layout.paneSized', aspect: Number.NaN });
    actor.send({ type: 'layout.request', definition: base });
    expect(calls[0]?.request.aspect).toBe(1.25);
    // A new shape mid-layout goes with the following request, and starts none.
    actor.send({ type: 'layout.paneSized', aspect: 0.5 });
    expect(calls).toHaveLength(1);
    calls[0]?.resolve(empty(base));
    await waitFor(actor, (x) => x.matches('idle'));
    actor.send({ type: 'layout.request', definition: withC(base, 'c') });
    expect(calls[1]?.request.aspect).toBe(0.5);
    actor.stop();
  });

  it('lays a picture made before the pane was measured out again when the first shape is far from it', async () => {
    const { logic, calls } = controlled();
    const actor = createActor(logic).start();
    actor.send({ type: 'layout.request', definition: base });
    // The first shape arrives mid-layout: the same definition is laid out again with it.
    actor.send({ type: 'layout.paneSized', aspect: 1.2 });
    calls[0]?.resolve(empty(base));
    await waitFor(actor, () => calls.length === 2);
    expect(calls[1]?.request.definition).toBe(base);
    expect(calls[1]?.request.aspect).toBe(1.2);
    // The picture made without the shape is never shown, nor handed on as hints.
    expect(actor.getSnapshot().context.layout).toBeNull();
    expect(calls[1]?.request.hints).toBeNull();
    calls[1]?.resolve(empty(base));
    await waitFor(actor, (x) => x.matches('idle'));

    // Idle with a 10×10 picture made without a shape: a first shape of 5:1 is far from it.
    const late = controlled();
    const other = createActor(late.logic).start();
    other.send({ type: 'layout.request', definition: base });
    late.calls[0]?.resolve(empty(base));
    await waitFor(other, (x) => x.matches('idle'));
    other.send({ type: 'layout.paneSized', aspect: 5 });
    expect(late.calls).toHaveLength(2);
    expect(late.calls[1]?.request.aspect).toBe(5);
    late.calls[1]?.resolve(empty(base));
    await waitFor(other, (x) => x.matches('idle'));
    // Later shapes never lay out by themselves.
    other.send({ type: 'layout.paneSized', aspect: 0.2 });
    expect(late.calls).toHaveLength(2);

    // A first shape close to the picture's (1.2 against 1:1) lays nothing out.
    const near = controlled();
    const third = createActor(near.logic).start();
    third.send({ type: 'layout.request', definition: base });
    near.calls[0]?.resolve(empty(base));
    await waitFor(third, (x) => x.matches('idle'));
    third.send({ type: 'layout.paneSized', aspect: 1.2 });
    expect(near.calls).toHaveLength(1);
    for (const a of [actor, other, third]) a.stop();
  });

  it('reports a failed layout and keeps the last good picture', async () => {
    const { logic, calls } = controlled();
    const actor = createActor(logic).start();
    actor.send({ type: 'layout.request', definition: base });
    calls[0]?.resolve(empty(base));
    await waitFor(actor, (s) => s.matches('idle'));
    actor.send({ type: 'layout.request', definition: withC(base, 'c') });
    calls[1]?.resolve({ ok: false, message: 'ELK said no' });
    let s = await waitFor(actor, (x) => x.matches('idle'));
    expect(s.context.error).toBe('ELK said no');
    expect(s.context.layout).not.toBeNull();
    actor.send({ type: 'layout.request', definition: withC(base, 'x') });
    actor.send({ type: 'layout.request', definition: withC(base, 'y') });
    calls[2]?.resolve({ ok: false, message: 'The layout worker failed.' });
    await waitFor(actor, () => calls.length === 4);
    calls[3]?.resolve({ ok: false, message: 'The layout worker failed.' });
    s = await waitFor(actor, (x) => x.matches('idle'));
    expect(s.context.error).toBe('The layout worker failed.');
  });

  it('owns its engine: stopping the actor closes it, and a restarted engine is sent the request in hand (StrictMode)', async () => {
    const { logic, calls, engines } = controlled();
    const actor = createActor(logic).start();
    expect(engines).toEqual({ started: 1, closed: 0 });
    actor.send({ type: 'layout.request', definition: base });
    expect(calls).toHaveLength(1);
    // The engine starts again (as after React's second mount): it says so and gets the request again.
    actor.send({ type: 'layout.engineReady' });
    expect(calls.map((c) => c.request.definition)).toEqual([base, base]);
    calls[1]?.resolve(empty(base));
    const s = await waitFor(actor, (x) => x.matches('idle'));
    expect(s.context.laidOut).toBe(base);
    // A late answer for a definition no longer in hand changes nothing.
    actor.send({ type: 'layout.done', definition: withC(base, 'old'), result: { ok: false, message: 'late' } });
    expect(actor.getSnapshot().context.error).toBeNull();
    actor.stop();
    expect(engines.closed).toBe(1);
  });

  it('says so when the engine cannot start (no worker)', () => {
    const broken = layoutMachine.provide({
      actors: {
        engine: fromCallback(() => {
          throw new Error('no Worker here');
        }),
      },
    });
    const actor = createActor(broken).start();
    expect(actor.getSnapshot().hasTag('broken')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('The diagram could not be laid out.');
  });
});

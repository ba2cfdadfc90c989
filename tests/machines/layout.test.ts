import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { layoutMachine } from '../../machines/layout.machine.ts';
import { estimateText, layoutDefinition } from '../../src/lib/layout/index.ts';
import { applyOps, counterIds, importXState, type MachineDefinition } from '../../src/lib/model/index.ts';
import type { LayoutRequest, LayoutResult } from '../../src/lib/ports/layout.ts';

const base = importXState({ id: 'm', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } }, { ids: counterIds('m') });
const withC = (d: MachineDefinition, key: string): MachineDefinition => applyOps(d, [{ type: 'state.add', id: `s_${key}`, parent: d.root, key, stateType: 'atomic', index: null }]);

/** A layout actor we settle by hand, recording what it was asked. */
function controlled() {
  const calls: { request: LayoutRequest; resolve: (r: LayoutResult) => void; reject: (e: Error) => void }[] = [];
  const actor = fromPromise<LayoutResult, LayoutRequest>(({ input }) => new Promise((resolve, reject) => calls.push({ request: input, resolve, reject })));
  return { actor, calls };
}

const empty = (def: MachineDefinition): LayoutResult => ({ ok: true, layout: { nodes: Object.fromEntries(Object.keys(def.states).map((id) => [id, { id, parent: null, key: id, type: 'atomic', depth: 0, region: false, history: null, initial: null, header: 0, x: 1, y: 2, width: 3, height: 4 }])), edges: {}, width: 10, height: 10 } });

describe('layout machine', () => {
  it('lays out with real ELK and stores the layout', async () => {
    const elk = new ELK();
    const actor = createActor(layoutMachine.provide({ actors: { layout: fromPromise<LayoutResult, LayoutRequest>(async ({ input }) => ({ ok: true, layout: await layoutDefinition(elk, input.definition, estimateText, input.hints) })) } })).start();
    actor.send({ type: 'layout.request', definition: base });
    const done = await waitFor(actor, (s) => s.matches('idle') && s.context.layout !== null, { timeout: 20_000 });
    expect(Object.keys(done.context.layout?.nodes ?? {})).toHaveLength(3);
    expect(done.context.laidOut).toBe(base);
  });

  it('collapses requests that arrive mid-layout into one, and passes the previous layout as hints', async () => {
    const { actor: layout, calls } = controlled();
    const actor = createActor(layoutMachine.provide({ actors: { layout } })).start();
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

  it('reports a failed layout and keeps the last good picture', async () => {
    const { actor: layout, calls } = controlled();
    const actor = createActor(layoutMachine.provide({ actors: { layout } })).start();
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
    calls[2]?.reject(new Error('worker died'));
    await waitFor(actor, () => calls.length === 4);
    calls[3]?.reject(new Error('worker died'));
    s = await waitFor(actor, (x) => x.matches('idle'));
    expect(s.context.error).toBe('The diagram could not be laid out.');
  });

  it('paths: every state is reached and every shortest path replays', async () => {
    const c = withC(base, 'c');
    const events = [
      { type: 'layout.request' as const, definition: base },
      { type: 'layout.request' as const, definition: c },
      { type: 'xstate.done.actor.0.layout.running', output: empty(base) },
      { type: 'xstate.error.actor.0.layout.running', error: new Error('x') },
    ];
    const paths = getShortestPaths(layoutMachine, { events: events as never[], serializeState: (s) => JSON.stringify([s.value, s.context.queued !== null]) });
    const values = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    expect(values).toEqual(new Set(['"idle"', '"running"']));
    for (const path of paths) {
      const { actor: layout, calls } = controlled();
      const actor = createActor(layoutMachine.provide({ actors: { layout } })).start();
      for (const step of path.steps) {
        const e = step.event as { type: string; output?: LayoutResult; error?: Error };
        if (e.type.startsWith('xstate.done')) calls.at(-1)?.resolve(e.output as LayoutResult);
        else if (e.type.startsWith('xstate.error')) calls.at(-1)?.reject(e.error as Error);
        else actor.send(e as never);
        await new Promise((r) => setTimeout(r, 0));
      }
      expect(JSON.stringify([actor.getSnapshot().value, actor.getSnapshot().context.queued !== null])).toBe(JSON.stringify([path.state.value, path.state.context.queued !== null]));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { inspectorMachine, type InspectorEmitted } from '../../machines/open-machine/inspector.machine.ts';
import { applyOps, counterIds, exportXState, importXState } from '../../src/lib/model/index.ts';

const def = importXState(
  { id: 'm', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } },
  { ids: counterIds('m') },
);
const a = Object.values(def.states).find((s) => s.key === 'a')?.id as string;

function start(canEdit = true) {
  const actor = createActor(inspectorMachine, { input: { definition: def, canEdit } });
  const emitted: InspectorEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  return { actor, emitted };
}

describe('inspector machine', () => {
  it('shows what is selected: a state, a transition, else the machine', () => {
    const { actor } = start();
    expect(actor.getSnapshot().hasTag('machine')).toBe(true);
    actor.send({ type: 'inspector.selectionChanged', selection: [a] });
    expect(actor.getSnapshot().hasTag('state')).toBe(true);
    actor.send({ type: 'inspector.selectionChanged', selection: Object.keys(def.transitions) });
    expect(actor.getSnapshot().hasTag('transition')).toBe(true);
    // The selected state is deleted by someone else: back to the machine.
    actor.send({ type: 'inspector.selectionChanged', selection: [a] });
    const without = applyOps(def, [
      { type: 'state.delete', id: a },
      { type: 'state.setInitial', id: def.root, initial: null },
    ]);
    actor.send({ type: 'inspector.definitionChanged', definition: without });
    expect(actor.getSnapshot().hasTag('machine')).toBe(true);
  });

  it('emits an edit as ops that do what the field says', () => {
    const { actor, emitted } = start();
    actor.send({
      type: 'inspector.edit',
      edit: { kind: 'transition.guard', id: Object.keys(def.transitions)[0] as string, text: 'and(ready, not(busy))' },
    });
    const ops = emitted.flatMap((e) => (e.type === 'inspector.ops' ? e.ops : []));
    expect(exportXState(applyOps(def, ops))).toMatchObject({
      states: {
        a: {
          on: {
            GO: {
              target: 'b',
              guard: { type: 'and', params: { guards: ['ready', { type: 'not', params: { guards: ['busy'] } }] } },
            },
          },
        },
      },
    });
  });

  it('keeps a bad edit as an error and emits nothing; a viewer emits nothing', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'inspector.edit', edit: { kind: 'machine.context', text: '[1]' } });
    expect(actor.getSnapshot().context.error).toBe('context must be a JSON object');
    expect(emitted.filter((e) => e.type === 'inspector.ops' && e.ops.length > 0)).toEqual([]);
    const viewer = start(false);
    viewer.actor.send({ type: 'inspector.edit', edit: { kind: 'machine.context', text: '{}' } });
    expect(viewer.emitted).toEqual([]);
  });

  it('replaces the machine as ops only after a confirmation', () => {
    const { actor, emitted } = start();
    const other = importXState({ id: 'n', initial: 'x', states: { x: {}, y: {} } });
    actor.send({
      type: 'inspector.importRead',
      machine: { name: 'n', definition: other, config: exportXState(other), notes: [] },
    });
    actor.send({ type: 'inspector.importReplace' });
    expect(emitted).toEqual([]);
    actor.send({ type: 'inspector.importConfirm' });
    const ops = emitted.flatMap((e) => (e.type === 'inspector.ops' ? e.ops : []));
    expect(exportXState(applyOps(def, ops))).toStrictEqual(exportXState(other));
  });

  it('sends its ops to its editor as machine.edit (the open machine routes them to the document)', () => {
    const told: unknown[] = [];
    const editor = createActor(fromCallback(({ receive }) => receive((e) => told.push(e)))).start();
    const actor = createActor(inspectorMachine, { input: { definition: def, canEdit: true, editor } }).start();
    actor.send({ type: 'inspector.edit', edit: { kind: 'state.type', id: a, type: 'parallel' } });
    expect(told).toEqual([{ type: 'machine.edit', ops: expect.arrayContaining([expect.anything()]) as unknown }]);
    // A bad edit, or one before the document has loaded, tells the editor nothing.
    actor.send({ type: 'inspector.edit', edit: { kind: 'machine.context', text: '[1]' } });
    const early = createActor(inspectorMachine, { input: { definition: null, canEdit: true, editor } }).start();
    early.send({ type: 'inspector.edit', edit: { kind: 'state.type', id: a, type: 'parallel' } });
    expect(early.getSnapshot().context.error).toBeNull();
    expect(told).toHaveLength(1);
  });
});

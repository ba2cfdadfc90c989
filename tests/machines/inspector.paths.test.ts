import { createActor, type SnapshotFrom } from 'xstate';
import {
  inspectorMachine,
  type InspectorEmitted,
  type InspectorEvent,
} from '../../machines/open-machine/inspector.machine.ts';
import { counterIds, exportXState, importXState } from '../../src/lib/model/index.ts';
import { describeMachinePaths, type MachinePaths } from './machine-paths.ts';

/** Path tests for the Inspector: what it shows, edits emitted as ops, and the import review. */

type Snapshot = SnapshotFrom<typeof inspectorMachine>;
const def = importXState(
  { id: 'm', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } },
  { ids: counterIds('m') },
);
const stateId = Object.values(def.states).find((s) => s.key === 'a')?.id as string;
const transitionId = Object.keys(def.transitions)[0] as string;
const other = importXState({ id: 'n', initial: 'x', states: { x: {} } }, { ids: counterIds('n') });
const imported = { name: 'n', definition: other, config: exportXState(other), notes: [] };

const events: InspectorEvent[] = [
  { type: 'inspector.selectionChanged', selection: [stateId] },
  { type: 'inspector.selectionChanged', selection: [transitionId] },
  { type: 'inspector.selectionChanged', selection: [] },
  { type: 'inspector.edit', edit: { kind: 'state.type', id: stateId, type: 'parallel' } },
  { type: 'inspector.edit', edit: { kind: 'machine.context', text: '{ nope' } },
  { type: 'inspector.editableChanged', canEdit: false },
  { type: 'inspector.importRead', machine: imported },
  { type: 'inspector.importFailed', error: 'bad file' },
  { type: 'inspector.importAsNew' },
  { type: 'inspector.importReplace' },
  { type: 'inspector.importConfirm' },
  { type: 'inspector.importCancel' },
];

const observe = (s: Snapshot) => ({
  value: s.value,
  error: s.context.error,
  canEdit: s.context.canEdit,
  imported: s.context.imported !== null,
  importError: s.context.importError,
  selection: s.context.selection,
});

const machine = inspectorMachine as unknown as MachinePaths<
  Snapshot,
  InspectorEvent,
  { definition: typeof def; canEdit: boolean }
>['machine'];

describeMachinePaths('inspector machine', {
  machine,
  traversal: {
    events,
    input: { definition: def, canEdit: true },
    serializeState: (s: Snapshot) => JSON.stringify(observe(s)),
    serializeEvent: (e: InspectorEvent) => JSON.stringify(e),
  },
  replay: (steps) => {
    const actor = createActor(inspectorMachine, { input: { definition: def, canEdit: true } });
    const emitted: InspectorEmitted[] = [];
    actor.on('*', (e) => emitted.push(e));
    actor.start();
    for (const event of steps) actor.send(event);
    return Promise.resolve(actor);
  },
  observe,
  minEdges: 20,
});

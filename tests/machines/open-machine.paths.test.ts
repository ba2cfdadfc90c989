import { createActor, type SnapshotFrom } from 'xstate';
import { openMachineMachine, type OpenMachineEvent } from '../../machines/open-machine/open-machine.machine.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import { describeMachinePaths } from './machine-paths.ts';
import { fakeOpenMachine, OPEN_INPUT } from './open-machine.fakes.ts';

/**
 * Path tests for the open machine: one mode (`open`) whose edges are its routes; every
 * edge is replayed on the machine running with recording children, and what it must
 * reproduce is whether it may edit and the definition it applies gestures to.
 */

type Snapshot = SnapshotFrom<typeof openMachineMachine>;
const definition = importXState({ id: 'm', initial: 'a', states: { a: {}, b: {} } }, { ids: counterIds('m') });

const events: OpenMachineEvent[] = [
  { type: 'machine.editableChanged', canEdit: false },
  { type: 'machine.editableChanged', canEdit: true },
  { type: 'machine.replace', definition },
  { type: 'edit.addChild', parent: 'm_1', id: 's_new' },
  { type: 'edit.addSibling', sibling: 'm_1', id: 's_sib' },
  { type: 'edit.rename', id: 'm_1', key: 'renamed' },
  { type: 'edit.delete', ids: ['m_1'] },
  { type: 'edit.connect', source: 'm_1', target: 'm_2', id: 't_new' },
  { type: 'edit.event', id: 't_new', event: 'GO' },
  { type: 'edit.retarget', id: 't_new', index: 0, target: 'm_1' },
];

async function replay(steps: readonly OpenMachineEvent[]) {
  const fake = fakeOpenMachine();
  const actor = createActor(fake.logic, { input: OPEN_INPUT }).start();
  actor.getSnapshot().children.document?.send({ type: 'test.load', definition } as never);
  for (const event of steps) actor.send(event);
  return Promise.resolve(actor);
}

const observe = (snapshot: Snapshot) => ({ value: snapshot.value, canEdit: snapshot.context.canEdit });

describeMachinePaths('open machine', {
  machine: openMachineMachine,
  traversal: {
    events,
    input: OPEN_INPUT,
    serializeState: (snapshot: Snapshot) => JSON.stringify(observe(snapshot)),
    serializeEvent: (event: OpenMachineEvent) => JSON.stringify(event),
  },
  replay,
  observe,
  minEdges: 10,
});

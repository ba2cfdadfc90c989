import { createActor, type SnapshotFrom } from 'xstate';
import { codeViewMachine, configText, type CodeViewEvent } from '../../machines/open-machine/code-view.machine.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import { describeMachinePaths, type MachinePaths } from './machine-paths.ts';

/** Path tests for the code view's modes: every state reached, every edge replayed. */

type Snapshot = SnapshotFrom<typeof codeViewMachine>;
const v1 = importXState({ id: 'm', initial: 'a', states: { a: {} } }, { ids: counterIds('m') });
const v2 = importXState({ id: 'm', initial: 'a', states: { a: {}, b: {} } }, { ids: counterIds('m') });

const events: CodeViewEvent[] = [
  { type: 'code.definitionChanged', definition: v2 },
  { type: 'code.typed', text: 'edited' },
  { type: 'code.typed', text: configText(v1) },
  { type: 'code.apply', text: '{ nope' },
  { type: 'code.apply', text: configText(v2) },
  { type: 'code.revert' },
  { type: 'code.seen', seen: false },
  { type: 'code.seen', seen: true },
  { type: 'code.editableChanged', canEdit: false },
];

const observe = (snapshot: Snapshot) => ({
  value: snapshot.value,
  shown: snapshot.context.shown === configText(v1) ? 'v1' : 'other',
  errors: snapshot.context.errors.length > 0,
  seen: snapshot.context.seen,
});

// The helper's logic type declares no emitted events; this machine emits `code.show`, which the graph ignores.
const machine = codeViewMachine as unknown as MachinePaths<
  Snapshot,
  CodeViewEvent,
  { definition: typeof v1 }
>['machine'];

describeMachinePaths('code view machine', {
  machine,
  traversal: {
    events,
    input: { definition: v1 },
    serializeState: (s: Snapshot) => JSON.stringify(observe(s)),
    serializeEvent: (e: CodeViewEvent) => JSON.stringify(e),
  },
  replay: (steps) => {
    const actor = createActor(codeViewMachine, { input: { definition: v1 } }).start();
    for (const event of steps) actor.send(event);
    return Promise.resolve(actor);
  },
  observe,
  minEdges: 10,
});

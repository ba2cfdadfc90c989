import { createActor, type SnapshotFrom } from 'xstate';
import {
  inspectionDiagramMachine,
  type InspectionDiagramEvent,
} from '../../machines/inspection/inspection-diagram.machine.ts';
import { heldRequests } from './held-requests.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';

/**
 * Path tests for the picked actor's diagram and Save as machine: every state node reached,
 * every shortest path and every edge replayed with held requests.
 */

type Snapshot = SnapshotFrom<typeof inspectionDiagramMachine>;
type GraphEvent = InspectionDiagramEvent | { type: string; output?: unknown; error?: unknown };
type Request = 'layoutDiagram' | 'saveMachine';

const INPUT = { projectId: 'p-1' };
const laid = { definition: { id: 't' }, layout: { width: 10, height: 10 } };
const done = (request: Request, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${request}`, output });
const crashed = (request: Request): GraphEvent => ({
  type: `xstate.error.actor.${request}`,
  error: new Error('crashed'),
});

const events: GraphEvent[] = [
  { type: 'diagram.show', actorId: 'x:0', config: { id: 't' } },
  { type: 'diagram.show', actorId: 'x:1', config: { id: 'u' } },
  { type: 'diagram.clear' },
  done('layoutDiagram', laid),
  done('layoutDiagram', null),
  crashed('layoutDiagram'),
  { type: 'inspection.saveMachine', name: 'Saved', config: { id: 't' } },
  { type: 'inspection.saveMachine', name: ' ', config: { id: 't' } },
  done('saveMachine', { ok: true, value: 'm-1' }),
  done('saveMachine', { ok: false, message: 'Viewers cannot create machines.' }),
  crashed('saveMachine'),
  { type: 'inspection.dismissError' },
];

function key(snapshot: Snapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    wanted: c.wanted?.actorId ?? null,
    layout: c.layout?.actorId ?? null,
    saved: c.savedMachineId,
    error: c.error,
  });
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

async function replay(steps: readonly GraphEvent[]) {
  const held = heldRequests<Request>(flush);
  const logic = inspectionDiagramMachine.provide({
    actors: { layoutDiagram: held.request('layoutDiagram'), saveMachine: held.request('saveMachine') } as never,
  });
  const actor = createActor(logic, { input: INPUT }).start();
  for (const event of steps) {
    if (await settleRequest(held, event)) continue;
    actor.send(event as InspectionDiagramEvent);
    await flush();
  }
  return actor;
}

describeMachinePaths('inspection diagram machine', {
  machine: inspectionDiagramMachine,
  traversal: {
    events: events as InspectionDiagramEvent[],
    input: INPUT,
    filterEvents: (snapshot: Snapshot, event: InspectionDiagramEvent) => {
      if (!snapshot.can(event)) return false;
      const c = snapshot.context;
      switch (event.type) {
        case 'diagram.show':
          return c.savedMachineId === null && c.error === null && (c.wanted === null || c.layout !== null);
        case 'inspection.saveMachine':
          return c.savedMachineId === null && c.error === null;
        case 'inspection.dismissError':
          return c.error !== null;
        default:
          return true;
      }
    },
    serializeState: key,
    serializeEvent: (event: InspectionDiagramEvent) => JSON.stringify(event),
  },
  replay,
  observe: key,
  minEdges: 20,
});

import { createActor, type SnapshotFrom } from 'xstate';
import {
  inspectionSourcesMachine,
  type InspectionSourcesEvent,
  type InspectionSourcesInput,
} from '../../machines/inspection/inspection-sources.machine.ts';
import type { InspectionSource } from '../../src/lib/ports/inspection.ts';
import { heldRequests } from './held-requests.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';

/**
 * Path tests for a project's inspection sources: every state node reached, every shortest
 * path and every edge replayed with held requests. One source loaded, at most one created.
 */

type Snapshot = SnapshotFrom<typeof inspectionSourcesMachine>;
type GraphEvent = InspectionSourcesEvent | { type: string; output?: unknown; error?: unknown };
type Request = 'createSource' | 'revokeSource' | 'setRetention';

const source: InspectionSource = {
  id: 's-1',
  name: 'web',
  maxEvents: 100,
  maxDays: 7,
  createdAt: '2026-11-24T00:00:00Z',
  revokedAt: null,
};
const INPUT: InspectionSourcesInput = { projectId: 'p-1', isOwner: true, canEdit: true, sources: [source] };
const ok = <T>(value: T) => ({ ok: true as const, value });
const refused = (message: string) => ({ ok: false as const, message });
const done = (request: Request, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${request}`, output });
const crashed = (request: Request): GraphEvent => ({
  type: `xstate.error.actor.${request}`,
  error: new Error('crashed'),
});

const events: GraphEvent[] = [
  { type: 'inspection.createSource', name: 'web 2' },
  { type: 'inspection.createSource', name: '  ' },
  done('createSource', ok({ source: { ...source, id: 's-2', name: 'web 2' }, key: 'cri_k' })),
  done('createSource', refused('Project not found')),
  crashed('createSource'),
  { type: 'inspection.dismissKey' },
  { type: 'inspection.revokeSource', sourceId: 's-2' },
  done('revokeSource', ok({ sourceId: 's-2', revokedAt: '2026-11-24T01:00:00Z' })),
  done('revokeSource', refused('Only owners may')),
  crashed('revokeSource'),
  { type: 'inspection.sourceRevoked', sourceId: 's-1', revokedAt: '2026-11-24T01:00:00Z' },
  { type: 'inspection.setRetention', sourceId: 's-1', maxEvents: 500, maxDays: 3 },
  done('setRetention', ok({ sourceId: 's-1', maxEvents: 500, maxDays: 3 })),
  done('setRetention', refused('only owners and editors may')),
  crashed('setRetention'),
  { type: 'inspection.sourceUpdated', sourceId: 's-1', maxEvents: 200, maxDays: 2 },
  { type: 'inspection.dismissError' },
];

function key(snapshot: Snapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    sources: c.sources.map((s) => `${s.id}:${s.revokedAt ? 'r' : 'l'}:${s.maxEvents}/${s.maxDays}`),
    key: c.createdKey?.key ?? null,
    error: c.error,
  });
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

async function replay(steps: readonly GraphEvent[]) {
  const held = heldRequests<Request>(flush);
  const logic = inspectionSourcesMachine.provide({
    actors: {
      createSource: held.request('createSource'),
      revokeSource: held.request('revokeSource'),
      setRetention: held.request('setRetention'),
    } as never,
  });
  const actor = createActor(logic, { input: INPUT }).start();
  for (const event of steps) {
    if (await settleRequest(held, event)) continue;
    actor.send(event as InspectionSourcesEvent);
    await flush();
  }
  return actor;
}

describeMachinePaths('inspection sources machine', {
  machine: inspectionSourcesMachine,
  traversal: {
    events: events as InspectionSourcesEvent[],
    input: INPUT,
    filterEvents: (snapshot: Snapshot, event: InspectionSourcesEvent) => {
      if (!snapshot.can(event)) return false;
      const c = snapshot.context;
      const quiet = c.error === null && c.createdKey === null;
      switch (event.type) {
        case 'inspection.createSource':
          return quiet && c.sources.length === 1;
        case 'inspection.revokeSource':
          return quiet && c.sources.length === 2 && !c.sources[0]!.revokedAt;
        case 'inspection.sourceRevoked':
          return quiet && !c.sources.find((s) => s.id === 's-1')!.revokedAt;
        case 'inspection.setRetention':
        case 'inspection.sourceUpdated':
          return quiet && c.sources.length === 1 && c.sources[0]!.maxEvents === 100;
        case 'inspection.dismissKey':
          return c.createdKey !== null;
        case 'inspection.dismissError':
          return c.error !== null;
        default:
          return true;
      }
    },
    serializeState: key,
    serializeEvent: (event: InspectionSourcesEvent) => JSON.stringify(event),
  },
  replay,
  observe: key,
  minEdges: 20,
});

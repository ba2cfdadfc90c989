import { vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { projectsMachine, type ProjectsEvent } from '../../machines/account/projects.machine.ts';
import type { ProjectsFact } from '../../src/lib/ports/projects.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
import { fakeProjects, project, refused, type ProjectsRequest } from './projects.fakes.ts';

/**
 * Path tests for the projects machine: every shortest path and
 * every edge of its graph, replayed on the running machine with the fake adapter.
 */

type Snapshot = SnapshotFrom<typeof projectsMachine>;
type GraphEvent = ProjectsEvent | { type: string; output?: unknown; error?: unknown };

const done = (actor: ProjectsRequest, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${actor}`, output });
const crashed = (actor: ProjectsRequest): GraphEvent => ({
  type: `xstate.error.actor.${actor}`,
  error: new Error(`${actor} crashed`),
});

const isFact = (event: { type: string }) => /^projects\.(channel|upserted|removed)/.test(event.type);

const events: GraphEvent[] = [
  done('listProjects', { ok: true, value: [project('p1')] }),
  done('listProjects', refused('Could not load')),
  crashed('listProjects'),
  { type: 'projects.retry' },
  { type: 'projects.create', project: { name: 'New', description: '', visibility: 'private' } },
  { type: 'projects.rename', id: 'p1', name: 'Renamed' },
  { type: 'projects.share', id: 'p1', visibility: 'public' },
  { type: 'projects.delete', id: 'p1' },
  { type: 'projects.dismissError' },
  done('createProject', { ok: true, value: project('p2') }),
  done('createProject', refused('No')),
  crashed('createProject'),
  done('updateProject', { ok: true, value: null }),
  done('updateProject', refused('No')),
  crashed('updateProject'),
  done('deleteProject', { ok: true, value: null }),
  done('deleteProject', refused('No')),
  crashed('deleteProject'),
  { type: 'projects.channelJoined' },
  { type: 'projects.channelFailed', message: 'closed' },
  { type: 'projects.upserted', project: project('p3') },
  { type: 'projects.removed', id: 'p3' },
];

// States are modes plus the few context facts guards read; list contents would make the graph endless.
const serializeState = (snapshot: Snapshot) =>
  JSON.stringify({
    value: snapshot.value,
    reloadDue: snapshot.context.reloadDue,
    hasP1: snapshot.context.projects.some((p) => p.id === 'p1'),
    problem: snapshot.context.problem !== null,
    loadError: snapshot.context.loadError !== null,
    inFlight: snapshot.context.inFlight !== null,
  });

const traversal = {
  events: events as ProjectsEvent[],
  filterEvents: (snapshot: Snapshot, event: ProjectsEvent) => snapshot.can(event),
  serializeState,
  serializeEvent: (event: ProjectsEvent) => JSON.stringify(event),
  input: { userId: 'u1' },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeProjects();
  const actor = createActor(projectsMachine.provide({ actors: fake.actors }), { input: { userId: 'u1' } }).start();
  const take = async (event: GraphEvent) => {
    if (await settleRequest(fake, event)) return;
    if (isFact(event)) {
      fake.emit(event as ProjectsFact);
      await vi.advanceTimersByTimeAsync(0);
    } else actor.send(event as ProjectsEvent);
  };
  for (const event of steps) await take(event);
  return actor;
}

// A vertex is a serialized state (mode plus guard-relevant facts), so that is what must match.
const observe = (snapshot: Snapshot) => ({ value: snapshot.value, state: serializeState(snapshot) });

describeMachinePaths('projects machine', {
  machine: projectsMachine,
  traversal,
  replay,
  observe,
  minEdges: 60,
  fakeTimers: true,
});

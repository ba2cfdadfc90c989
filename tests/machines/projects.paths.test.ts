import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, type SnapshotFrom, type StateValue } from 'xstate';
import { type AdjacencyMap, type SerializedSnapshot, getAdjacencyMap, getShortestPaths, getStateNodes, type StatePath } from 'xstate/graph';
import { projectsMachine, type ProjectsEvent } from '../../machines/projects.machine.ts';
import type { ProjectsFact } from '../../src/lib/ports/projects.ts';
import { fakeProjects, project, refused, type ProjectsRequest } from './projects.fakes.ts';

/**
 * Path tests (house style rule 12) for the projects machine: every shortest path and
 * every edge of its graph, replayed on the running machine with the fake adapter and
 * fake timers (the channel's backoff is a real `after`).
 */

type Snapshot = SnapshotFrom<typeof projectsMachine>;
type GraphEvent = ProjectsEvent | { type: string; output?: unknown; error?: unknown };

const done = (actor: ProjectsRequest, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${actor}`, output });
const crashed = (actor: ProjectsRequest): GraphEvent => ({ type: `xstate.error.actor.${actor}`, error: new Error(`${actor} crashed`) });
const BACKOFF = 'xstate.after.backoff.projects.channel.retrying';

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
  { type: 'projects.dismiss' },
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
  { type: BACKOFF },
];

// States are modes plus the few context facts guards read; list contents would make the graph endless.
const serializeState = (snapshot: Snapshot) =>
  JSON.stringify({
    value: snapshot.value,
    recovering: snapshot.context.channelFailures > 0,
    hasP1: snapshot.context.projects.some((p) => p.id === 'p1'),
    problem: snapshot.context.problem !== null,
    loadError: snapshot.context.loadError !== null,
    inFlight: snapshot.context.inFlight !== null,
  });

const traversal = {
  events: events as ProjectsEvent[],
  // Facts come only from the channel, so only while it is open.
  filterEvents: (snapshot: Snapshot, event: ProjectsEvent) =>
    snapshot.can(event) && (!isFact(event) || snapshot.matches({ channel: 'open' })),
  serializeState,
  serializeEvent: (event: ProjectsEvent) => JSON.stringify(event),
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeProjects();
  const actor = createActor(projectsMachine.provide({ actors: fake.actors }), { input: { userId: 'u1' } }).start();
  for (const event of steps) {
    const request = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (request) {
      const name = request[2] as ProjectsRequest;
      if (request[1] === 'done') await fake.settle(name, 'output' in event ? event.output : undefined);
      else await fake.fail(name, 'error' in event ? event.error : undefined);
    } else if (event.type === BACKOFF) {
      await vi.advanceTimersByTimeAsync(60_000);
    } else if (isFact(event)) {
      fake.emit(event as ProjectsFact);
      await vi.advanceTimersByTimeAsync(0);
    } else {
      actor.send(event as ProjectsEvent);
    }
  }
  return actor;
}

// A vertex is a serialized state (mode plus guard-relevant facts), so that is what must match.
const expectSame = (actual: Snapshot, expected: Snapshot) => {
  expect(actual.value).toEqual(expected.value);
  expect(serializeState(actual)).toBe(serializeState(expected));
};

const leafValue = (path: string[]): StateValue => (path.length === 1 ? (path[0] as string) : { [path[0] as string]: leafValue(path.slice(1)) });

describe('projects machine paths', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const paths: StatePath<Snapshot, ProjectsEvent>[] = getShortestPaths(projectsMachine, { ...traversal, input: { userId: 'u1' } });

  it('reaches every state node by some path', () => {
    const reached = (nodePath: string[]) => paths.some((p) => p.state.matches(leafValue(nodePath) as never));
    const unreached = getStateNodes(projectsMachine.root)
      .filter((node) => node.path.length > 0)
      .filter((node) => !reached(node.path))
      .map((node) => node.path.join('.'));
    expect(unreached).toEqual([]);
  });

  it.each(paths.map((p) => [p.steps.map((s) => s.event.type).join(' → ') || '(initial)', p] as const))('replays %s', async (_name, path) => {
    const actor = await replay(path.steps.map((s) => s.event));
    expectSame(actor.getSnapshot(), path.state);
    actor.stop();
  });

  it('takes every edge of the graph on the running machine', async () => {
    const adjacency: AdjacencyMap<Snapshot, ProjectsEvent> = getAdjacencyMap(projectsMachine, { ...traversal, input: { userId: 'u1' } });
    const pathTo = new Map<string, StatePath<Snapshot, ProjectsEvent>>(paths.map((p) => [serializeState(p.state), p]));
    let edges = 0;
    for (const vertex of Object.keys(adjacency) as SerializedSnapshot[]) {
      const prefix = pathTo.get(vertex);
      expect(prefix, `a path to ${vertex}`).toBeDefined();
      for (const edge of Object.values(adjacency[vertex]?.transitions ?? {})) {
        const actor = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
        expectSame(actor.getSnapshot(), edge.state);
        actor.stop();
        edges += 1;
      }
    }
    expect(edges).toBeGreaterThan(60);
    console.info(`projects machine: ${paths.length} shortest paths, ${edges} edges replayed`);
  });
});

import { Subject } from 'rxjs';
import { vi } from 'vitest';
import { fromEventObservable } from 'xstate';
import type { NewProject, ProjectEdit, ProjectsFact, ProjectSummary } from '../../src/lib/ports/projects.ts';
import type { Result } from '../../src/lib/ports/room.ts';
import { heldRequests } from './held-requests.ts';

/**
 * A fake projects adapter: the test pushes live facts with `emit` and settles the request
 * the machine is waiting on with `settle`/`fail`. Flushing advances vitest's fake timers
 * by zero, so tests that use them and tests that don't both see promise callbacks run.
 */

export type ProjectsRequest = 'listProjects' | 'createProject' | 'updateProject' | 'deleteProject';

export function fakeProjects() {
  const facts = new Subject<ProjectsFact>();
  const { request, take, calls, pending } = heldRequests<ProjectsRequest>();
  let subscriptions = 0;
  return {
    actors: {
      projectChanges: fromEventObservable<ProjectsFact, { userId: string }>(() => {
        subscriptions += 1;
        return facts;
      }),
      listProjects: request<Result<ProjectSummary[]>, { userId: string }>('listProjects'),
      createProject: request<Result<ProjectSummary>, NewProject>('createProject'),
      updateProject: request<Result<null>, { id: string; edit: ProjectEdit }>('updateProject'),
      deleteProject: request<Result<null>, { id: string }>('deleteProject'),
    },
    calls,
    subscriptions: () => subscriptions,
    isOpen: (name: ProjectsRequest) => pending.has(name),
    emit: (fact: ProjectsFact) => facts.next(fact),
    async settle(name: ProjectsRequest, output: unknown) {
      take(name).resolve(output);
      await flush();
    },
    async fail(name: ProjectsRequest, error: unknown) {
      take(name).reject(error);
      await flush();
    },
  };
}

export async function flush(): Promise<void> {
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  else await new Promise((resolve) => setTimeout(resolve, 0));
}

export const project = (id: string, over: Partial<ProjectSummary> = {}): ProjectSummary => ({
  id,
  name: `Project ${id}`,
  description: '',
  visibility: 'private',
  role: 'owner',
  memberCount: 1,
  shareToken: null,
  createdAt: `2026-11-22T00:00:0${id.length % 10}Z`,
  ...over,
});

export const refused = (message: string): Result<never> => ({ ok: false, error: { code: 'forbidden', message } });

import { createActorContext } from '@xstate/react';
import { useCallback } from 'react';
import { projectsMachine, type ProjectsIntent } from '../../../machines/account/projects.machine.ts';
import type { ProjectSummary } from '../../lib/ports/projects.ts';

/** The projects actor for the React tree, read through one-slice hooks. */
export const ProjectsContext = createActorContext(projectsMachine);

export type ProjectsStatus = 'loading' | 'failed' | 'ready';

export function useProjectsStatus(): ProjectsStatus {
  return ProjectsContext.useSelector((state): ProjectsStatus =>
    state.hasTag('failed') ? 'failed' : state.hasTag('loading') ? 'loading' : 'ready',
  );
}

const sameList = (a: ProjectSummary[], b: ProjectSummary[]) => a.length === b.length && a.every((p, i) => p === b[i]);

export function useProjectList(): ProjectSummary[] {
  return ProjectsContext.useSelector((state) => state.context.projects, sameList);
}

export function useLoadError(): string | null {
  return ProjectsContext.useSelector((state) => state.context.loadError);
}

export function useProjectsProblem(): string | null {
  return ProjectsContext.useSelector((state) => state.context.problem);
}

/** A change request is in flight; the list takes one at a time. */
export function useProjectsBusy(): boolean {
  return ProjectsContext.useSelector((state) => state.hasTag('busy'));
}

export function useListIsLive(): boolean {
  return ProjectsContext.useSelector((state) => state.hasTag('live'));
}

export function useProjectsSend(): (intent: ProjectsIntent) => void {
  const actor = ProjectsContext.useActorRef();
  return useCallback((intent: ProjectsIntent) => actor.send(intent), [actor]);
}

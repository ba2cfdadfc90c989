import { liveProfileAdapter } from '../adapters/supabase/profile.ts';
import { liveJoinAdapters, liveProjectsAdapter } from '../adapters/supabase/projects.ts';
import {
  joinLogic,
  profileLogic,
  projectsLogic,
  type JoinLogic,
  type ProfileLogic,
  type ProjectsLogic,
} from './projects.ts';

/** The projects, profile and join machines with the real adapters, made on first use. */

let projects: ProjectsLogic | null = null;
let profile: ProfileLogic | null = null;
let join: JoinLogic | null = null;

export const liveProjectsLogic = (): ProjectsLogic => (projects ??= projectsLogic(liveProjectsAdapter()));
export const liveProfileLogic = (): ProfileLogic => (profile ??= profileLogic(liveProfileAdapter()));
export function liveJoinLogic(): JoinLogic {
  if (!join) {
    const adapters = liveJoinAdapters();
    join = joinLogic(adapters.projects, adapters.members);
  }
  return join;
}

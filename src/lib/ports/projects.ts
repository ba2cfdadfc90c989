import type { Observable } from 'rxjs';
import type { Result, Role, Visibility } from './room.ts';

/**
 * The projects port: the signed-in person's list of projects, live, and the requests
 * that change it. Plain data; src/adapters/supabase/projects.ts implements it.
 */

export interface ProjectSummary {
  id: string;
  name: string;
  description: string;
  visibility: Visibility;
  /** The caller's role in it. */
  role: Role;
  /** How many people are in it, every role counted: the project row's member_count, kept by the database. */
  memberCount: number;
  /** Only owners see (and may share) the link; null for everyone else. */
  shareToken: string | null;
  /** Postgres `created_at` as text: the list is newest first. */
  createdAt: string;
}

export interface NewProject {
  name: string;
  description: string;
  visibility: Visibility;
}

export interface ProjectEdit {
  name?: string;
  description?: string;
  visibility?: Visibility;
}

/** Changes to the caller's list from any tab or person, past tense. */
export type ProjectsFact =
  | { type: 'projects.channelJoined' }
  | { type: 'projects.channelFailed'; message: string }
  /** A project the caller is in was created, changed, or the caller was added to it. */
  | { type: 'projects.upserted'; project: ProjectSummary }
  /** A project was deleted, or the caller left or was removed. */
  | { type: 'projects.removed'; id: string };

export interface ProjectsPort {
  /** Live changes to this user's projects; subscribing opens a channel, unsubscribing removes it. */
  changes(userId: string): Observable<ProjectsFact>;
  list(userId: string): Promise<Result<ProjectSummary[]>>;
  create(project: NewProject): Promise<Result<ProjectSummary>>;
  update(id: string, edit: ProjectEdit): Promise<Result<null>>;
  remove(id: string): Promise<Result<null>>;
  /** Joins a link/public project through its share link as a viewer; answers its id. */
  joinShared(shareToken: string): Promise<Result<string>>;
}

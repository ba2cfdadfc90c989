import type { ProjectSummary } from './ports/projects.ts';

/**
 * The projects list as pure operations: the machine applies live facts and optimistic
 * changes with these, so their rules (newest first, one entry per id) live in one place.
 */

const newestFirst = (a: ProjectSummary, b: ProjectSummary) => b.createdAt.localeCompare(a.createdAt);

/** Adds or replaces a project by id, keeping the list newest first. */
export function upsertProject(list: readonly ProjectSummary[], project: ProjectSummary): ProjectSummary[] {
  return [...list.filter((p) => p.id !== project.id), project].sort(newestFirst);
}

export function removeProject(list: readonly ProjectSummary[], id: string): ProjectSummary[] {
  return list.filter((p) => p.id !== id);
}

/** Applies an edit to one project; a missing id leaves the list as it is. */
export function patchProject(
  list: readonly ProjectSummary[],
  id: string,
  patch: Partial<Omit<ProjectSummary, 'id'>>,
): ProjectSummary[] {
  return list.map((p) => (p.id === id ? { ...p, ...patch } : p));
}

/**
 * Undoes an optimistic edit: the fields it changed go back to what they were, unless a
 * live fact has since replaced them (then the server's word stands).
 */
export function revertPatch(
  list: readonly ProjectSummary[],
  before: ProjectSummary,
  patch: Partial<Omit<ProjectSummary, 'id'>>,
): ProjectSummary[] {
  return list.map((p) => {
    if (p.id !== before.id) return p;
    const reverted = { ...p };
    for (const key of Object.keys(patch) as (keyof typeof patch)[]) {
      if (p[key] === patch[key]) Object.assign(reverted, { [key]: before[key] });
    }
    return reverted;
  });
}

import { fromEventObservable, fromPromise } from 'xstate';
import { joinMachine, type JoinInput } from '../../machines/account/join.machine.ts';
import { profileMachine } from '../../machines/account/profile.machine.ts';
import { projectsMachine } from '../../machines/account/projects.machine.ts';
import type { AvatarFile, OwnProfile, ProfileEdit, ProfilePort, UploadFact } from '../lib/ports/profile.ts';
import type { NewProject, ProjectEdit, ProjectsFact, ProjectsPort, ProjectSummary } from '../lib/ports/projects.ts';
import type { AcceptedInvite, MembersPort, Result } from '../lib/ports/room.ts';

/** The projects machine wired to the projects port. */
export function projectsLogic(port: ProjectsPort) {
  return projectsMachine.provide({
    actors: {
      projectChanges: fromEventObservable<ProjectsFact, { userId: string }>(({ input }) => port.changes(input.userId)),
      listProjects: fromPromise<Result<ProjectSummary[]>, { userId: string }>(({ input }) => port.list(input.userId)),
      createProject: fromPromise<Result<ProjectSummary>, NewProject>(({ input }) => port.create(input)),
      updateProject: fromPromise<Result<null>, { id: string; edit: ProjectEdit }>(({ input }) =>
        port.update(input.id, input.edit),
      ),
      deleteProject: fromPromise<Result<null>, { id: string }>(({ input }) => port.remove(input.id)),
    },
  });
}
export type ProjectsLogic = ReturnType<typeof projectsLogic>;

/** The profile machine wired to the profile port. */
export function profileLogic(port: ProfilePort) {
  return profileMachine.provide({
    actors: {
      loadProfile: fromPromise<Result<OwnProfile>, { userId: string }>(({ input }) => port.load(input.userId)),
      saveProfile: fromPromise<Result<OwnProfile>, { userId: string; edit: ProfileEdit }>(({ input }) =>
        port.update(input.userId, input.edit),
      ),
      uploadAvatar: fromEventObservable<UploadFact, { userId: string; file: AvatarFile }>(({ input }) =>
        port.uploadAvatar(input.userId, input.file),
      ),
    },
  });
}
export type ProfileLogic = ReturnType<typeof profileLogic>;

/** The join machine: an invite through the accept-invite function, a share link through the rpc. */
export function joinLogic(projects: ProjectsPort, members: MembersPort) {
  return joinMachine.provide({
    actors: {
      join: fromPromise<Result<string>, JoinInput>(async ({ input }) => {
        if (input.kind === 'share') return projects.joinShared(input.token);
        const accepted: Result<AcceptedInvite> = await members.acceptInvite(input.token);
        return accepted.ok ? { ok: true, value: accepted.value.projectId } : accepted;
      }),
    },
  });
}
export type JoinLogic = ReturnType<typeof joinLogic>;

import { assertEvent, assign, raise, setup } from 'xstate';
import type { NewProject, ProjectEdit, ProjectsFact, ProjectSummary } from '../../src/lib/ports/projects.ts';
import type { Result, Visibility } from '../../src/lib/ports/room.ts';
import { patchProject, removeProject, revertPatch, upsertProject } from '../../src/lib/projects-list.ts';
import { output, request, requestNotProvided, streamNotProvided, UNEXPECTED } from '../shared.ts';

/**
 * The signed-in person's projects, live. Two regions: `list` (loading the list, then
 * ready to take one change request at a time) and `channel` (the live feed of changes:
 * `subscribing`, `live`, and `rejoining` after a failure, while supabase-js rejoins it
 * once the socket is back; see "Reconnecting" in machines/CONTEXT.md). Requests are
 * optimistic: the list changes at once and goes back, with the server's reason, if the
 * request is refused. After the feed rejoins the list is read again, since changes may
 * have been missed meanwhile (once the request in flight is done, if there is one).
 */

export type ProjectsIntent =
  | { type: 'projects.retry' }
  | { type: 'projects.create'; project: NewProject }
  | { type: 'projects.rename'; id: string; name: string }
  | { type: 'projects.share'; id: string; visibility: Visibility }
  | { type: 'projects.delete'; id: string }
  | { type: 'projects.dismissError' };

export type ProjectsEvent = ProjectsIntent | ProjectsFact | { type: 'projects.stale' };

export interface ProjectsContext {
  userId: string;
  projects: ProjectSummary[];
  /** Why the list could not be read (the list region is `failed`). */
  loadError: string | null;
  /** Why the last change was refused; the list has been rolled back. */
  problem: string | null;
  /** The optimistic change in flight, to undo it on refusal. */
  inFlight: { before: ProjectSummary | null; patch: Partial<ProjectSummary>; tempId: string | null } | null;
  /** The feed recovered during a request: read the list again once the request is done. */
  reloadDue: boolean;
  /** Numbers temporary ids of projects being created. */
  nextTemp: number;
}

export type ProjectsTag = 'loading' | 'failed' | 'ready' | 'busy' | 'live' | 'reconnecting';

type Update = { id: string; edit: ProjectEdit };

export const projectsMachine = setup({
  types: {
    context: {} as ProjectsContext,
    events: {} as ProjectsEvent,
    input: {} as { userId: string },
    tags: {} as ProjectsTag,
  },
  actors: {
    projectChanges: streamNotProvided<ProjectsFact, { userId: string }>('projects', 'projectChanges'),
    listProjects: requestNotProvided<Result<ProjectSummary[]>, { userId: string }>('projects', 'listProjects'),
    createProject: requestNotProvided<Result<ProjectSummary>, NewProject>('projects', 'createProject'),
    updateProject: requestNotProvided<Result<null>, Update>('projects', 'updateProject'),
    deleteProject: requestNotProvided<Result<null>, { id: string }>('projects', 'deleteProject'),
  },
  guards: {
    refused: (_, result: Result<unknown>) => !result.ok,
    reloadDue: ({ context }) => context.reloadDue,
    isListed: ({ context, event }) => {
      assertEvent(event, ['projects.rename', 'projects.share', 'projects.delete']);
      return context.projects.some((p) => p.id === event.id && !p.id.startsWith('pending:'));
    },
  },
  actions: {
    showList: assign((_, result: Result<ProjectSummary[]>) =>
      result.ok ? { projects: result.value, loadError: null } : { loadError: result.error.message },
    ),
    showUnexpectedLoad: assign({ loadError: UNEXPECTED }),
    applyFact: assign(({ context, event }) => {
      assertEvent(event, ['projects.upserted', 'projects.removed']);
      if (event.type === 'projects.removed') return { projects: removeProject(context.projects, event.id) };
      // The feed can tell of the project being created before the request answers: the
      // real row takes the pending one's place, so the list never shows it twice.
      const tempId = context.inFlight?.tempId ?? null;
      const pending = tempId ? context.projects.find((p) => p.id === tempId) : undefined;
      const ours = pending && event.project.role === 'owner' && event.project.name === pending.name;
      const list = ours ? removeProject(context.projects, pending.id) : context.projects;
      return { projects: upsertProject(list, event.project) };
    }),
    addOptimistic: assign(({ context, event }) => {
      assertEvent(event, 'projects.create');
      const tempId = `pending:${context.nextTemp}`;
      const project: ProjectSummary = {
        id: tempId,
        ...event.project,
        name: event.project.name.trim(),
        role: 'owner',
        memberCount: 1,
        shareToken: null,
        // Sorts first: a new project is the newest.
        createdAt: '9999',
      };
      return {
        projects: upsertProject(context.projects, project),
        inFlight: { before: null, patch: {}, tempId },
        nextTemp: context.nextTemp + 1,
        problem: null,
      };
    }),
    confirmCreated: assign(({ context }, result: Result<ProjectSummary>) => {
      const tempId = context.inFlight?.tempId ?? '';
      const without = removeProject(context.projects, tempId);
      return { projects: result.ok ? upsertProject(without, result.value) : without, inFlight: null };
    }),
    patchOptimistic: assign(({ context, event }) => {
      assertEvent(event, ['projects.rename', 'projects.share']);
      const patch: Partial<ProjectSummary> =
        event.type === 'projects.rename' ? { name: event.name.trim() } : { visibility: event.visibility };
      const before = context.projects.find((p) => p.id === event.id) ?? null;
      return {
        projects: patchProject(context.projects, event.id, patch),
        inFlight: { before, patch, tempId: null },
        problem: null,
      };
    }),
    removeOptimistic: assign(({ context, event }) => {
      assertEvent(event, 'projects.delete');
      const before = context.projects.find((p) => p.id === event.id) ?? null;
      return {
        projects: removeProject(context.projects, event.id),
        inFlight: { before, patch: {}, tempId: null },
        problem: null,
      };
    }),
    rollBackPatch: assign(({ context }) => {
      const flight = context.inFlight;
      return {
        projects: flight?.before ? revertPatch(context.projects, flight.before, flight.patch) : context.projects,
        inFlight: null,
      };
    }),
    rollBackRemoval: assign(({ context }) => {
      const before = context.inFlight?.before;
      return { projects: before ? upsertProject(context.projects, before) : context.projects, inFlight: null };
    }),
    settle: assign({ inFlight: null }),
    showProblem: assign((_, result: Result<unknown>) => ({ problem: result.ok ? null : result.error.message })),
    showUnexpected: assign({ problem: UNEXPECTED }),
    clearProblem: assign({ problem: null }),
    markStale: raise({ type: 'projects.stale' }),
    deferReload: assign({ reloadDue: true }),
    clearReload: assign({ reloadDue: false }),
  },
}).createMachine({
  id: 'projects',
  type: 'parallel',
  context: ({ input }) => ({
    userId: input.userId,
    projects: [],
    loadError: null,
    problem: null,
    inFlight: null,
    reloadDue: false,
    nextTemp: 1,
  }),
  // Live facts change the list in every mode, so nothing that arrives while loading is lost.
  on: {
    'projects.upserted': { actions: 'applyFact' },
    'projects.removed': { actions: 'applyFact' },
  },
  states: {
    list: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          entry: 'clearReload',
          invoke: {
            id: 'listProjects',
            src: 'listProjects',
            input: ({ context }) => ({ userId: context.userId }),
            ...request({
              refused: { target: 'failed', actions: { type: 'showList', params: output } },
              done: { target: 'ready', actions: { type: 'showList', params: output } },
              threw: { target: 'failed', actions: 'showUnexpectedLoad' },
            }),
          },
        },
        failed: {
          tags: ['failed'],
          on: { 'projects.retry': 'loading' },
        },
        ready: {
          initial: 'idle',
          on: {
            'projects.dismissError': { actions: 'clearProblem' },
            // Mid-request a re-read would fight the optimistic change: read once the request is done.
            'projects.stale': { actions: 'deferReload' },
          },
          states: {
            idle: {
              tags: ['ready'],
              always: { guard: 'reloadDue', target: '#projects.list.loading' },
              on: {
                'projects.create': { target: 'creating', actions: 'addOptimistic' },
                'projects.rename': { guard: 'isListed', target: 'updating', actions: 'patchOptimistic' },
                'projects.share': { guard: 'isListed', target: 'updating', actions: 'patchOptimistic' },
                'projects.delete': { guard: 'isListed', target: 'deleting', actions: 'removeOptimistic' },
                'projects.stale': '#projects.list.loading',
              },
            },
            creating: {
              tags: ['ready', 'busy'],
              invoke: {
                id: 'createProject',
                src: 'createProject',
                input: ({ event }) => {
                  assertEvent(event, 'projects.create');
                  return event.project;
                },
                ...request({
                  refused: {
                    target: 'idle',
                    actions: [
                      { type: 'confirmCreated', params: output },
                      { type: 'showProblem', params: output },
                    ],
                  },
                  done: { target: 'idle', actions: { type: 'confirmCreated', params: output } },
                  threw: {
                    target: 'idle',
                    actions: [
                      {
                        type: 'confirmCreated',
                        params: { ok: false, error: { code: 'unexpected', message: UNEXPECTED } },
                      },
                      'showUnexpected',
                    ],
                  },
                }),
              },
            },
            updating: {
              tags: ['ready', 'busy'],
              invoke: {
                id: 'updateProject',
                src: 'updateProject',
                input: ({ event }) => {
                  assertEvent(event, ['projects.rename', 'projects.share']);
                  return {
                    id: event.id,
                    edit: event.type === 'projects.rename' ? { name: event.name } : { visibility: event.visibility },
                  };
                },
                ...request({
                  refused: { target: 'idle', actions: ['rollBackPatch', { type: 'showProblem', params: output }] },
                  done: { target: 'idle', actions: 'settle' },
                  threw: { target: 'idle', actions: ['rollBackPatch', 'showUnexpected'] },
                }),
              },
            },
            deleting: {
              tags: ['ready', 'busy'],
              invoke: {
                id: 'deleteProject',
                src: 'deleteProject',
                input: ({ event }) => {
                  assertEvent(event, 'projects.delete');
                  return { id: event.id };
                },
                ...request({
                  refused: { target: 'idle', actions: ['rollBackRemoval', { type: 'showProblem', params: output }] },
                  done: { target: 'idle', actions: 'settle' },
                  threw: { target: 'idle', actions: ['rollBackRemoval', 'showUnexpected'] },
                }),
              },
            },
          },
        },
      },
    },
    channel: {
      // One invoke for the region's whole life: supabase-js rejoins a failed channel itself.
      invoke: { id: 'projectChanges', src: 'projectChanges', input: ({ context }) => ({ userId: context.userId }) },
      initial: 'subscribing',
      states: {
        subscribing: {
          on: { 'projects.channelJoined': 'live', 'projects.channelFailed': 'rejoining' },
        },
        live: {
          tags: ['live'],
          on: { 'projects.channelFailed': 'rejoining' },
        },
        rejoining: {
          tags: ['reconnecting'],
          on: { 'projects.channelJoined': { target: 'live', actions: 'markStale' } },
        },
      },
    },
  },
});

export type ProjectsMachine = typeof projectsMachine;

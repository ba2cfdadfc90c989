import { assertEvent, assign, setup } from 'xstate';
import type { InspectionResult, InspectionSource } from '../../src/lib/ports/inspection.ts';
import { output, request, requestNotProvided } from '../shared.ts';

/**
 * A project's inspection sources: the list, an owner creating one (its key shown
 * once) or revoking one, owners and editors changing what a source keeps; one request at a
 * time. Invoked by inspection.machine.ts (id `sources`) while it is `ready`, with the sources
 * it loaded; it forwards the feed's `inspection.sourceRevoked` and `.sourceUpdated`.
 */

export interface InspectionSourcesInput {
  projectId: string;
  isOwner: boolean;
  /** Owners and editors: may change a source's retention. */
  canEdit: boolean;
  sources: InspectionSource[];
}

export interface InspectionSourcesContext extends InspectionSourcesInput {
  /** The key of the source just created: shown once, until dismissed. */
  createdKey: { sourceId: string; key: string } | null;
  error: string | null;
}

type Retention = { sourceId: string; maxEvents: number; maxDays: number };

export type InspectionSourcesEvent =
  | { type: 'inspection.createSource'; name: string }
  | { type: 'inspection.revokeSource'; sourceId: string }
  | ({ type: 'inspection.setRetention' } & Retention)
  | { type: 'inspection.dismissKey' }
  | { type: 'inspection.dismissError' }
  | { type: 'inspection.sourceRevoked'; sourceId: string; revokedAt: string }
  | ({ type: 'inspection.sourceUpdated' } & Retention);

type Created = { source: InspectionSource; key: string };
type Revoked = { sourceId: string; revokedAt: string };

/** The sources with one source's retention changed. */
const retained = (sources: InspectionSource[], r: Retention) =>
  sources.map((s) => (s.id === r.sourceId ? { ...s, maxEvents: r.maxEvents, maxDays: r.maxDays } : s));

const sourcesSetup = setup({
  types: {
    context: {} as InspectionSourcesContext,
    input: {} as InspectionSourcesInput,
    events: {} as InspectionSourcesEvent,
    tags: {} as 'busy',
  },
  actors: {
    createSource: requestNotProvided<InspectionResult<Created>, { projectId: string; name: string }>(
      'inspection',
      'createSource',
    ),
    revokeSource: requestNotProvided<InspectionResult<Revoked>, { sourceId: string }>('inspection', 'revokeSource'),
    setRetention: requestNotProvided<InspectionResult<Retention>, Retention>('inspection', 'setRetention'),
  },
  guards: {
    isOwner: ({ context }) => context.isOwner,
    canEdit: ({ context }) => context.canEdit,
    mayCreate: ({ context, event }) =>
      context.isOwner && event.type === 'inspection.createSource' && event.name.trim().length > 0,
    refused: (_, result: InspectionResult<unknown>) => !result.ok,
  },
  actions: {
    /** The feed says a source was revoked (by anyone). */
    noteRevoked: assign(({ context, event }) => {
      assertEvent(event, 'inspection.sourceRevoked');
      return {
        sources: context.sources.map((s) => (s.id === event.sourceId ? { ...s, revokedAt: event.revokedAt } : s)),
      };
    }),
    noteUpdated: assign(({ context, event }) => {
      assertEvent(event, 'inspection.sourceUpdated');
      return { sources: retained(context.sources, event) };
    }),
    addCreated: assign(({ context }, result: InspectionResult<Created>) =>
      result.ok
        ? {
            sources: [result.value.source, ...context.sources],
            createdKey: { sourceId: result.value.source.id, key: result.value.key },
            error: null,
          }
        : {},
    ),
    markRevoked: assign(({ context }, result: InspectionResult<Revoked>) =>
      result.ok
        ? {
            sources: context.sources.map((s) =>
              s.id === result.value.sourceId ? { ...s, revokedAt: result.value.revokedAt } : s,
            ),
            createdKey: context.createdKey?.sourceId === result.value.sourceId ? null : context.createdKey,
            error: null,
          }
        : {},
    ),
    keepRetention: assign(({ context }, result: InspectionResult<Retention>) =>
      result.ok ? { sources: retained(context.sources, result.value), error: null } : {},
    ),
    showRefusal: assign((_, result: InspectionResult<unknown>) => (result.ok ? {} : { error: result.message })),
    showFailure: assign((_, message: string) => ({ error: message })),
    dismissKey: assign({ createdKey: null }),
    clearError: assign({ error: null }),
  },
});

export const inspectionSourcesMachine = sourcesSetup.createMachine({
  id: 'inspectionSources',
  context: ({ input }) => ({ ...input, createdKey: null, error: null }),
  initial: 'idle',
  on: {
    'inspection.sourceUpdated': { actions: 'noteUpdated' },
    'inspection.sourceRevoked': { actions: 'noteRevoked' },
    'inspection.dismissKey': { actions: 'dismissKey' },
    'inspection.dismissError': { actions: 'clearError' },
  },
  states: {
    idle: {
      on: {
        'inspection.createSource': { guard: 'mayCreate', target: 'creating' },
        'inspection.revokeSource': { guard: 'isOwner', target: 'revoking' },
        'inspection.setRetention': { guard: 'canEdit', target: 'settingRetention' },
      },
    },
    creating: {
      tags: ['busy'],
      invoke: {
        id: 'createSource',
        src: 'createSource',
        input: ({ context, event }) => {
          assertEvent(event, 'inspection.createSource');
          return { projectId: context.projectId, name: event.name.trim() };
        },
        ...request({
          refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
          done: { target: 'idle', actions: { type: 'addCreated', params: output } },
          threw: { target: 'idle', actions: { type: 'showFailure', params: 'The source could not be created.' } },
        }),
      },
    },
    revoking: {
      tags: ['busy'],
      invoke: {
        id: 'revokeSource',
        src: 'revokeSource',
        input: ({ event }) => {
          assertEvent(event, 'inspection.revokeSource');
          return { sourceId: event.sourceId };
        },
        ...request({
          refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
          done: { target: 'idle', actions: { type: 'markRevoked', params: output } },
          threw: { target: 'idle', actions: { type: 'showFailure', params: 'The source could not be revoked.' } },
        }),
      },
    },
    settingRetention: {
      tags: ['busy'],
      invoke: {
        id: 'setRetention',
        src: 'setRetention',
        input: ({ event }) => {
          assertEvent(event, 'inspection.setRetention');
          return { sourceId: event.sourceId, maxEvents: event.maxEvents, maxDays: event.maxDays };
        },
        ...request({
          refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
          done: { target: 'idle', actions: { type: 'keepRetention', params: output } },
          threw: { target: 'idle', actions: { type: 'showFailure', params: 'What is kept could not be changed.' } },
        }),
      },
    },
  },
});

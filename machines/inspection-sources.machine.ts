import { assign, fromPromise, setup } from 'xstate';
import type { InspectionResult, InspectionSource } from '../src/lib/ports/inspection.ts';
import { notProvided } from './shared.ts';

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

const fail = (actor: string) => () => Promise.reject(notProvided('inspection', actor));

export const inspectionSourcesMachine = setup({
  types: {
    context: {} as InspectionSourcesContext,
    input: {} as InspectionSourcesInput,
    events: {} as InspectionSourcesEvent,
  },
  actors: {
    createSource: fromPromise<
      InspectionResult<{ source: InspectionSource; key: string }>,
      { projectId: string; name: string }
    >(fail('createSource')),
    revokeSource: fromPromise<InspectionResult<{ sourceId: string; revokedAt: string }>, { sourceId: string }>(
      fail('revokeSource'),
    ),
    setRetention: fromPromise<InspectionResult<Retention>, Retention>(fail('setRetention')),
  },
  guards: {
    isOwner: ({ context }) => context.isOwner,
    canEdit: ({ context }) => context.canEdit,
  },
  actions: {
    setRetention: assign(({ context }, params: Retention) => ({
      sources: context.sources.map((s) =>
        s.id === params.sourceId ? { ...s, maxEvents: params.maxEvents, maxDays: params.maxDays } : s,
      ),
    })),
    markRevoked: assign(({ context }, params: { sourceId: string; revokedAt: string }) => ({
      sources: context.sources.map((s) => (s.id === params.sourceId ? { ...s, revokedAt: params.revokedAt } : s)),
      createdKey: context.createdKey?.sourceId === params.sourceId ? null : context.createdKey,
    })),
  },
}).createMachine({
  id: 'inspectionSources',
  context: ({ input }) => ({ ...input, createdKey: null, error: null }),
  initial: 'idle',
  on: {
    'inspection.sourceUpdated': { actions: { type: 'setRetention', params: ({ event }) => event } },
    'inspection.sourceRevoked': {
      actions: assign(({ context, event }) => ({
        sources: context.sources.map((s) => (s.id === event.sourceId ? { ...s, revokedAt: event.revokedAt } : s)),
      })),
    },
    'inspection.dismissKey': { actions: assign({ createdKey: null }) },
    'inspection.dismissError': { actions: assign({ error: null }) },
  },
  states: {
    idle: {
      on: {
        'inspection.createSource': {
          guard: ({ context, event }) => context.isOwner && event.name.trim().length > 0,
          target: 'creating',
        },
        'inspection.revokeSource': { guard: 'isOwner', target: 'revoking' },
        'inspection.setRetention': { guard: 'canEdit', target: 'settingRetention' },
      },
    },
    creating: {
      tags: ['busy'],
      invoke: {
        id: 'createSource',
        src: 'createSource',
        input: ({ context, event }) => ({
          projectId: context.projectId,
          name: (event as { name: string }).name.trim(),
        }),
        onDone: {
          target: 'idle',
          actions: assign(({ context, event }) =>
            event.output.ok
              ? {
                  sources: [event.output.value.source, ...context.sources],
                  createdKey: { sourceId: event.output.value.source.id, key: event.output.value.key },
                  error: null,
                }
              : { error: event.output.message },
          ),
        },
        onError: { target: 'idle', actions: assign({ error: 'The source could not be created.' }) },
      },
    },
    revoking: {
      tags: ['busy'],
      invoke: {
        id: 'revokeSource',
        src: 'revokeSource',
        input: ({ event }) => ({ sourceId: (event as { sourceId: string }).sourceId }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'idle',
            actions: [
              {
                type: 'markRevoked',
                params: ({ event }) =>
                  (event.output as { ok: true; value: { sourceId: string; revokedAt: string } }).value,
              },
              assign({ error: null }),
            ],
          },
          {
            target: 'idle',
            actions: assign({ error: ({ event }) => (event.output as { ok: false; message: string }).message }),
          },
        ],
        onError: { target: 'idle', actions: assign({ error: 'The source could not be revoked.' }) },
      },
    },
    settingRetention: {
      tags: ['busy'],
      invoke: {
        id: 'setRetention',
        src: 'setRetention',
        input: ({ event }) => {
          const { sourceId, maxEvents, maxDays } = event as Retention;
          return { sourceId, maxEvents, maxDays };
        },
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'idle',
            actions: [
              { type: 'setRetention', params: ({ event }) => (event.output as { ok: true; value: Retention }).value },
              assign({ error: null }),
            ],
          },
          {
            target: 'idle',
            actions: assign({ error: ({ event }) => (event.output as { ok: false; message: string }).message }),
          },
        ],
        onError: { target: 'idle', actions: assign({ error: 'What is kept could not be changed.' }) },
      },
    },
  },
});

import { assign, fromPromise, setup } from 'xstate';
import type { Layout } from '../src/lib/layout/types.ts';
import type { MachineDefinition } from '../src/lib/model/types.ts';
import type { InspectionResult } from '../src/lib/ports/inspection.ts';
import { notProvided } from './shared.ts';

/**
 * The picked actor's machine on the inspection page: its definition laid out for
 * the diagram, one layout at a time, and saving an inspected definition into the project as
 * a new machine. Invoked by inspection.machine.ts (id `diagram`) while it is `ready`; the
 * session machine says which actor to draw and with what config.
 */

export interface InspectionDiagramInput {
  projectId: string;
}

export interface InspectionDiagramContext extends InspectionDiagramInput {
  /** What is to be drawn (the latest `diagram.show`). */
  wanted: { actorId: string; config: Record<string, unknown> } | null;
  /** The picked actor's machine in the project's model, laid out for the diagram. */
  layout: { actorId: string; definition: MachineDefinition; layout: Layout } | null;
  savedMachineId: string | null;
  error: string | null;
}

export type InspectionDiagramEvent =
  | { type: 'diagram.show'; actorId: string; config: Record<string, unknown> }
  | { type: 'diagram.clear' }
  | { type: 'inspection.saveMachine'; name: string; config: Record<string, unknown> }
  | { type: 'inspection.dismissError' };

export const inspectionDiagramMachine = setup({
  types: {
    context: {} as InspectionDiagramContext,
    input: {} as InspectionDiagramInput,
    events: {} as InspectionDiagramEvent,
  },
  actors: {
    layoutDiagram: fromPromise<
      { definition: MachineDefinition; layout: Layout } | null,
      { config: Record<string, unknown> }
    >(() => Promise.reject(notProvided('inspection', 'layoutDiagram'))),
    saveMachine: fromPromise<
      InspectionResult<string>,
      { projectId: string; name: string; config: Record<string, unknown> }
    >(() => Promise.reject(notProvided('inspection', 'saveMachine'))),
  },
  guards: {
    hasName: (_, params: { name: string }) => params.name.trim().length > 0,
  },
}).createMachine({
  id: 'inspectionDiagram',
  context: ({ input }) => ({ ...input, wanted: null, layout: null, savedMachineId: null, error: null }),
  on: { 'inspection.dismissError': { actions: assign({ error: null }) } },
  type: 'parallel',
  states: {
    layout: {
      initial: 'idle',
      on: {
        'diagram.show': {
          target: '.laying',
          reenter: true,
          actions: assign({ wanted: ({ event }) => ({ actorId: event.actorId, config: event.config }) }),
        },
        'diagram.clear': { target: '.idle', actions: assign({ wanted: null, layout: null }) },
      },
      states: {
        idle: {},
        laying: {
          invoke: {
            id: 'layoutDiagram',
            src: 'layoutDiagram',
            input: ({ context }) => ({ config: context.wanted?.config ?? {} }),
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                layout: event.output && context.wanted ? { actorId: context.wanted.actorId, ...event.output } : null,
              })),
            },
            onError: { target: 'idle', actions: assign({ layout: null }) },
          },
        },
      },
    },
    save: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'inspection.saveMachine': {
              guard: { type: 'hasName', params: ({ event }) => ({ name: event.name }) },
              target: 'saving',
            },
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            id: 'saveMachine',
            src: 'saveMachine',
            input: ({ context, event }) => {
              const { name, config } = event as { name: string; config: Record<string, unknown> };
              return { projectId: context.projectId, name, config };
            },
            onDone: {
              target: 'idle',
              actions: assign(({ event }) =>
                event.output.ok ? { savedMachineId: event.output.value, error: null } : { error: event.output.message },
              ),
            },
            onError: { target: 'idle', actions: assign({ error: 'The machine could not be saved.' }) },
          },
        },
      },
    },
  },
});

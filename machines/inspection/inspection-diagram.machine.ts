import { assertEvent, assign, setup } from 'xstate';
import type { Layout } from '../../src/lib/layout/types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { InspectionResult } from '../../src/lib/ports/inspection.ts';
import { output, request, requestNotProvided, requestValue } from '../shared.ts';

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

type Laid = { definition: MachineDefinition; layout: Layout } | null;

const diagramSetup = setup({
  types: {
    context: {} as InspectionDiagramContext,
    input: {} as InspectionDiagramInput,
    events: {} as InspectionDiagramEvent,
    tags: {} as 'busy',
  },
  actors: {
    layoutDiagram: requestNotProvided<Laid, { config: Record<string, unknown> }>('inspection', 'layoutDiagram'),
    saveMachine: requestNotProvided<
      InspectionResult<string>,
      { projectId: string; name: string; config: Record<string, unknown> }
    >('inspection', 'saveMachine'),
  },
  guards: {
    hasName: (_, params: { name: string }) => params.name.trim().length > 0,
    refused: (_, result: InspectionResult<unknown>) => !result.ok,
  },
  actions: {
    want: assign(({ event }) => {
      assertEvent(event, 'diagram.show');
      return { wanted: { actorId: event.actorId, config: event.config } };
    }),
    clearDiagram: assign({ wanted: null, layout: null }),
    showLayout: assign(({ context }, laid: Laid) => ({
      layout: laid && context.wanted ? { actorId: context.wanted.actorId, ...laid } : null,
    })),
    noLayout: assign({ layout: null }),
    rememberSaved: assign((_, result: InspectionResult<string>) =>
      result.ok ? { savedMachineId: result.value, error: null } : {},
    ),
    showRefusal: assign((_, result: InspectionResult<unknown>) => (result.ok ? {} : { error: result.message })),
    showSaveFailure: assign({ error: 'The machine could not be saved.' }),
    clearError: assign({ error: null }),
  },
});

export const inspectionDiagramMachine = diagramSetup.createMachine({
  id: 'inspectionDiagram',
  context: ({ input }) => ({ ...input, wanted: null, layout: null, savedMachineId: null, error: null }),
  on: { 'inspection.dismissError': { actions: 'clearError' } },
  type: 'parallel',
  states: {
    layout: {
      initial: 'idle',
      on: {
        'diagram.show': { target: '.laying', reenter: true, actions: 'want' },
        'diagram.clear': { target: '.idle', actions: 'clearDiagram' },
      },
      states: {
        idle: {},
        laying: {
          invoke: {
            id: 'layoutDiagram',
            src: 'layoutDiagram',
            input: ({ context }) => ({ config: context.wanted?.config ?? {} }),
            ...requestValue({
              done: { target: 'idle', actions: { type: 'showLayout', params: output } },
              threw: { target: 'idle', actions: 'noLayout' },
            }),
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
              assertEvent(event, 'inspection.saveMachine');
              return { projectId: context.projectId, name: event.name, config: event.config };
            },
            ...request({
              refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
              done: { target: 'idle', actions: { type: 'rememberSaved', params: output } },
              threw: { target: 'idle', actions: 'showSaveFailure' },
            }),
          },
        },
      },
    },
  },
});

import { assign, emit, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { opsFromConfig } from '../../src/lib/model/reconcile.ts';
import { opsForEdit, type InspectorEdit } from '../../src/lib/inspector/edits.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { JsonObject, MachineDefinition } from '../../src/lib/model/types.ts';

/**
 * The Inspector beside the diagram: what it shows follows the canvas selection (the
 * machine when nothing or several things are selected, else the one state or transition),
 * and each field edit is turned into model ops (src/lib/inspector/edits.ts) and emitted as
 * `inspector.ops` for the document; an edit whose text does not read keeps the error and
 * emits nothing. Importing a file is the second region: a read machine is reviewed, then
 * either created as a new machine (on `inspector.importAsNew` the view asks the machine
 * list) or, after a confirmation, put in place of this one as ops (so Undo brings the old
 * one back).
 * The open machine invokes it (`systemId: 'inspector'`) and tells it the definition, the
 * canvas selection and who may edit; ops go to its `editor` (the open machine) as
 * `machine.edit`, the one road to the document, and are emitted for any other listener.
 */

export interface InspectorInput {
  /** Null until the document has loaded. */
  definition: MachineDefinition | null;
  canEdit: boolean;
  /** Where edits go as `machine.edit { ops }` (the open machine); none in tests that only listen. */
  editor?: AnyActorRef;
}

export interface ImportedMachine {
  name: string;
  definition: MachineDefinition;
  config: JsonObject;
  /** Warnings people should read before using it, in words. */
  notes: string[];
}

export type InspectorEvent =
  | { type: 'inspector.selectionChanged'; selection: string[] }
  | { type: 'inspector.definitionChanged'; definition: MachineDefinition }
  | { type: 'inspector.editableChanged'; canEdit: boolean }
  | { type: 'inspector.edit'; edit: InspectorEdit }
  | { type: 'inspector.dismissError' }
  | { type: 'inspector.importRead'; machine: ImportedMachine }
  | { type: 'inspector.importFailed'; error: string }
  | { type: 'inspector.importAsNew' }
  | { type: 'inspector.importReplace' }
  | { type: 'inspector.importConfirm' }
  | { type: 'inspector.importCancel' };

export type InspectorEmitted = { type: 'inspector.ops'; ops: Op[] };

export interface InspectorContext {
  definition: MachineDefinition | null;
  editor: AnyActorRef | null;
  canEdit: boolean;
  selection: string[];
  error: string | null;
  imported: ImportedMachine | null;
  importError: string | null;
}

export type InspectorTag = 'machine' | 'state' | 'transition';

interface Shown {
  definition: MachineDefinition | null;
  selection: string[];
}

const oneSelected = ({ selection }: Shown): string | undefined => (selection.length === 1 ? selection[0] : undefined);

/** The ops an edit makes on the definition (or why it makes none); nothing before the document loads. */
const editResult = (context: InspectorContext, edit: InspectorEdit) =>
  context.definition ? opsForEdit(context.definition, edit) : ({ ok: false, error: null } as const);

/** The ops that put the imported machine in place of this one. */
const replaceOps = (context: InspectorContext): Op[] =>
  context.imported && context.definition ? opsFromConfig(context.definition, context.imported.config) : [];

export const inspectorMachine = setup({
  types: {
    input: {} as InspectorInput,
    context: {} as InspectorContext,
    events: {} as InspectorEvent,
    emitted: {} as InspectorEmitted,
    tags: {} as InspectorTag,
  },
  guards: {
    /** The one thing selected (after this event) is a state / a transition of the definition (after this event). */
    isStateSelected: (_, shown: Shown) => {
      const id = oneSelected(shown);
      return id !== undefined && shown.definition !== null && Object.hasOwn(shown.definition.states, id);
    },
    isTransitionSelected: (_, shown: Shown) => {
      const id = oneSelected(shown);
      return id !== undefined && shown.definition !== null && Object.hasOwn(shown.definition.transitions, id);
    },
    canEdit: ({ context }) => context.canEdit,
  },
  actions: {
    setSelection: assign({
      selection: (_, selection: string[]) => selection,
      error: null,
    }),
    setDefinition: assign({ definition: (_, definition: MachineDefinition) => definition }),
    setEditable: assign({ canEdit: (_, canEdit: boolean) => canEdit }),
    emitEditOps: emit(({ context, event }) => {
      const result = event.type === 'inspector.edit' ? editResult(context, event.edit) : null;
      return { type: 'inspector.ops' as const, ops: result?.ok ? result.ops : [] };
    }),
    /** The edit's ops go to the editor (the open machine), which sends them to the document. */
    tellEditOps: enqueueActions(({ context, event, enqueue }) => {
      const result = event.type === 'inspector.edit' ? editResult(context, event.edit) : null;
      if (context.editor && result?.ok && result.ops.length > 0)
        enqueue.sendTo(context.editor, { type: 'machine.edit', ops: result.ops });
    }),
    clearError: assign({ error: null }),
    keepEditError: assign({
      error: ({ context, event }) => {
        if (event.type !== 'inspector.edit') return context.error;
        const result = editResult(context, event.edit);
        return result.ok ? null : result.error;
      },
    }),
    keepImport: assign({ imported: (_, machine: ImportedMachine) => machine, importError: null }),
    keepImportError: assign({ importError: (_, error: string) => error, imported: null }),
    forgetImport: assign({ imported: null, importError: null }),
    emitReplaceOps: emit(({ context }) => ({ type: 'inspector.ops' as const, ops: replaceOps(context) })),
    tellReplaceOps: enqueueActions(({ context, enqueue }) => {
      const ops = replaceOps(context);
      if (context.editor && ops.length > 0) enqueue.sendTo(context.editor, { type: 'machine.edit', ops });
    }),
  },
}).createMachine({
  id: 'inspector',
  type: 'parallel',
  context: ({ input }) => ({
    definition: input.definition,
    editor: input.editor ?? null,
    canEdit: input.canEdit,
    selection: [],
    error: null,
    imported: null,
    importError: null,
  }),
  on: {
    'inspector.definitionChanged': [
      {
        guard: {
          type: 'isStateSelected',
          params: ({ context, event }) => ({ definition: event.definition, selection: context.selection }),
        },
        target: '.showing.state',
        actions: { type: 'setDefinition', params: ({ event }) => event.definition },
      },
      {
        guard: {
          type: 'isTransitionSelected',
          params: ({ context, event }) => ({ definition: event.definition, selection: context.selection }),
        },
        target: '.showing.transition',
        actions: { type: 'setDefinition', params: ({ event }) => event.definition },
      },
      { target: '.showing.machine', actions: { type: 'setDefinition', params: ({ event }) => event.definition } },
    ],
    'inspector.selectionChanged': [
      {
        guard: {
          type: 'isStateSelected',
          params: ({ context, event }) => ({ definition: context.definition, selection: event.selection }),
        },
        target: '.showing.state',
        actions: { type: 'setSelection', params: ({ event }) => event.selection },
      },
      {
        guard: {
          type: 'isTransitionSelected',
          params: ({ context, event }) => ({ definition: context.definition, selection: event.selection }),
        },
        target: '.showing.transition',
        actions: { type: 'setSelection', params: ({ event }) => event.selection },
      },
      { target: '.showing.machine', actions: { type: 'setSelection', params: ({ event }) => event.selection } },
    ],
    'inspector.editableChanged': { actions: { type: 'setEditable', params: ({ event }) => event.canEdit } },
    'inspector.dismissError': { actions: 'clearError' },
  },
  states: {
    showing: {
      initial: 'machine',
      on: {
        // Without the right to edit, nothing is sent (the fields are read-only anyway).
        'inspector.edit': { guard: 'canEdit', actions: ['keepEditError', 'tellEditOps', 'emitEditOps'] },
      },
      states: {
        machine: { tags: ['machine'] },
        state: { tags: ['state'] },
        transition: { tags: ['transition'] },
      },
    },
    importing: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'inspector.importRead': {
              target: 'reviewing',
              actions: { type: 'keepImport', params: ({ event }) => event.machine },
            },
            'inspector.importFailed': { actions: { type: 'keepImportError', params: ({ event }) => event.error } },
            'inspector.importCancel': { actions: 'forgetImport' },
          },
        },
        reviewing: {
          on: {
            'inspector.importAsNew': { target: 'idle', actions: 'forgetImport' },
            'inspector.importReplace': { guard: 'canEdit', target: 'confirming' },
            'inspector.importCancel': { target: 'idle', actions: 'forgetImport' },
          },
        },
        confirming: {
          on: {
            'inspector.importConfirm': {
              guard: 'canEdit',
              target: 'idle',
              actions: ['tellReplaceOps', 'emitReplaceOps', 'forgetImport'],
            },
            'inspector.importCancel': { target: 'reviewing' },
          },
        },
      },
    },
  },
});

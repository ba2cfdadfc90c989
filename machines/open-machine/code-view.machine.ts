import { assertEvent, assign, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { checkXStateText } from '../../src/lib/model/check.ts';
import { exportXState } from '../../src/lib/model/export.ts';
import type { Issue, MachineDefinition } from '../../src/lib/model/types.ts';

/**
 * The code view's modes, like the diagram's: `following` (the text is the definition's
 * config and follows it, so others' edits show up), `editing` (the person changed the
 * text: it stays theirs until they apply or revert; `invalid` once an apply found errors).
 * The editor (CodeMirror, in the view) reports `code.typed`; the machine says what to show
 * (`code.show`, emitted) and hands an applied definition to its `editor` (the open
 * machine) as `machine.replace`. The view says whether the editor is on screen
 * (`code.seen`): an unseen one is sent the newest text once it is seen again. Unapplied
 * text is the person's only while they see it and may edit: the Code panel closed
 * (`code.seen` false) or edit rights lost (`code.editableChanged`, from the open machine)
 * discard it, and the newest definition is shown.
 */

export const configText = (def: MachineDefinition | null): string =>
  def ? JSON.stringify(exportXState(def), null, 2) : '';

export type CodeViewEvent =
  /** Fact from the open machine: the document shows a new definition. */
  | { type: 'code.definitionChanged'; definition: MachineDefinition }
  /** The editor's text changed (typing, paste, undo). */
  | { type: 'code.typed'; text: string }
  | { type: 'code.apply'; text: string }
  | { type: 'code.revert' }
  /** Fact from the view: whether the editor is on screen (a closed Code panel stays mounted, unseen). */
  | { type: 'code.seen'; seen: boolean }
  /** Fact from the open machine: whether this person may edit the machine here. */
  | { type: 'code.editableChanged'; canEdit: boolean };

export type CodeViewEmitted = { type: 'code.show'; text: string };

export interface CodeViewInput {
  /** null until the document has loaded. */
  definition: MachineDefinition | null;
  editor?: AnyActorRef | null;
}

export interface CodeViewContext {
  /** The text last shown from a definition: typing back to it ends `editing`. */
  shown: string;
  /** The person's unapplied text while `editing` (a new editor starts from it), else null. */
  typed: string | null;
  /** The newest definition, shown again on revert. */
  latest: MachineDefinition | null;
  /** Errors the last apply found. */
  errors: Issue[];
  editor: AnyActorRef | null;
  /**
   * Whether anyone sees the text: while not, following remembers the newest definition and
   * serializes it once seen again (a peer's edit of a 1,000-state chart no longer writes
   * 150 kB of JSON for a closed panel).
   */
  seen: boolean;
}

export type CodeViewTag = 'following' | 'dirty' | 'invalid';

const errorsIn = (text: string): Issue[] => checkXStateText(text).issues.filter((issue) => issue.severity === 'error');

export const codeViewMachine = setup({
  types: {
    input: {} as CodeViewInput,
    context: {} as CodeViewContext,
    events: {} as CodeViewEvent,
    emitted: {} as CodeViewEmitted,
    tags: {} as CodeViewTag,
  },
  actions: {
    rememberLatest: assign(({ event }) => {
      assertEvent(event, 'code.definitionChanged');
      return { latest: event.definition };
    }),
    noteSeen: assign(({ event }) => {
      assertEvent(event, 'code.seen');
      return { seen: event.seen };
    }),
    /** Follows the newest definition while seen: shows its text when it differs from what is shown (one serialization per change). */
    followLatest: enqueueActions(({ context, enqueue }) => {
      if (!context.seen) return;
      const text = configText(context.latest);
      if (text === context.shown) return;
      enqueue.assign({ shown: text });
      enqueue.emit({ type: 'code.show', text });
    }),
    noteTyped: assign(({ event }) => {
      assertEvent(event, 'code.typed');
      return { typed: event.text };
    }),
    /** Shows the newest definition's text over whatever the editor holds (a revert). */
    showLatest: enqueueActions(({ context, enqueue }) => {
      const text = configText(context.latest);
      enqueue.assign({ shown: text, typed: null, errors: [] });
      enqueue.emit({ type: 'code.show', text });
    }),
    clearTyped: assign({ typed: null, errors: [] }),
    showErrors: assign(({ event }) => {
      assertEvent(event, 'code.apply');
      return { errors: errorsIn(event.text) };
    }),
    /** An apply without errors: the text becomes what is shown, the definition goes to the editor. */
    applyText: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'code.apply');
      const { definition } = checkXStateText(event.text);
      enqueue.assign({ shown: event.text, typed: null, errors: [] });
      if (definition && context.editor) enqueue.sendTo(context.editor, { type: 'machine.replace', definition });
    }),
  },
  guards: {
    differsFromShown: ({ context, event }) => event.type === 'code.typed' && event.text !== context.shown,
    sameAsShown: ({ context, event }) => event.type === 'code.typed' && event.text === context.shown,
    hasErrors: ({ event }) => event.type === 'code.apply' && errorsIn(event.text).length > 0,
    unseen: ({ event }) => event.type === 'code.seen' && !event.seen,
    lostEdit: ({ event }) => event.type === 'code.editableChanged' && !event.canEdit,
  },
}).createMachine({
  id: 'codeView',
  context: ({ input }) => ({
    shown: configText(input.definition),
    latest: input.definition,
    typed: null,
    errors: [],
    editor: input.editor ?? null,
    seen: true,
  }),
  initial: 'following',
  states: {
    following: {
      tags: ['following'],
      on: {
        'code.definitionChanged': { actions: ['rememberLatest', 'followLatest'] },
        'code.seen': { actions: ['noteSeen', 'followLatest'] },
        'code.typed': { guard: 'differsFromShown', target: 'editing', actions: 'noteTyped' },
      },
    },
    editing: {
      tags: ['dirty'],
      initial: 'unchecked',
      on: {
        // Their text stays theirs: remember the definition for a revert, show nothing.
        'code.definitionChanged': { actions: 'rememberLatest' },
        // Closing the panel or losing edit rights discards the unapplied text.
        'code.seen': [
          { guard: 'unseen', target: 'following', actions: ['noteSeen', 'showLatest'] },
          { actions: 'noteSeen' },
        ],
        'code.editableChanged': { guard: 'lostEdit', target: 'following', actions: 'showLatest' },
        'code.typed': [{ guard: 'sameAsShown', target: 'following', actions: 'clearTyped' }, { actions: 'noteTyped' }],
        'code.revert': { target: 'following', actions: 'showLatest' },
        'code.apply': [
          { guard: 'hasErrors', target: '.invalid', actions: 'showErrors' },
          { target: 'following', actions: 'applyText' },
        ],
      },
      states: {
        unchecked: {},
        invalid: { tags: ['invalid'] },
      },
    },
  },
});

export type CodeViewMachine = typeof codeViewMachine;

import { NO_CHOICE } from '../../src/lib/layout/collapse.ts';
import { NO_PICTURES } from './canvas-picture.ts';
import { documentDefinition, documentVersion, openMachineSetup } from './open-machine.setup.ts';
import { followedReplay, NO_ROUTE, replayLook } from './replay-follow.ts';
import { canvasLook, followedView, NO_VIEW_ROUTE } from './view-follow.ts';

export * from './open-machine.setup.ts';

/**
 * One machine open in a room: the parent of its `document` (edits, commits, offline
 * queue), `presence` (who else is on it), `layout` (the diagram's positions), `canvas`
 * (viewport, selection, gestures), `code` (the code view's modes), `simulation` (the
 * room's shared simulation of this machine), `timeline` (everything that happened to it),
 * `inspector` (the Inspector's fields and import), `tests` (the Tests panel) and
 * `testPlayback` (test paths played for the room), `comments` (threads pinned to the
 * diagram) and `proposals` (changes drafted on the side, reviewed and merged), each invoked for as long as the machine
 * is open and registered in the actor system under its id. It routes between them, so no
 * view has to: every new definition from the document goes to the layout, the code view,
 * the Inspector and the tests; every edit (a canvas gesture, the Inspector's ops, a code
 * edit) reaches the document here and only here; each new layout goes to the canvas (which
 * fits it); the canvas's selection goes to presence
 * and the Inspector; the room's say on who may edit and send reaches the canvas, the
 * Inspector and the simulation; the play selected in the tests goes to the room.
 * The layout gets the definition as shown: a big chart's collapsed compounds closed
 * (src/lib/layout/collapse.ts): the deeper ones by default, as the view's choices say
 * otherwise. A definition that shows the same as the last one asked for (a rebase, an
 * acknowledged batch, an edit inside a collapsed state) is not laid out again.
 * The room invokes it; views read its children through named selector hooks.
 */
export const openMachineMachine = openMachineSetup.createMachine({
  id: 'openMachine',
  context: ({ input }) => ({
    ...input,
    canSend: input.canSend ?? false,
    definition: null,
    choice: NO_CHOICE,
    shown: null,
    replay: NO_ROUTE,
    view: NO_VIEW_ROUTE,
    version: null,
    toldDefinition: null,
    selection: [],
    played: null,
    pictures: NO_PICTURES,
    draftLocked: false,
  }),
  invoke: [
    {
      id: 'document',
      systemId: 'document',
      src: 'document',
      input: ({ context }) => ({ ...context.document, machineId: context.machineId }),
      onSnapshot: {
        actions: [
          { type: 'followDocument', params: ({ event }) => documentDefinition(event.snapshot) },
          { type: 'tellHead', params: ({ event }) => documentVersion(event.snapshot) },
        ],
      },
    },
    {
      id: 'presence',
      systemId: 'presence',
      src: 'presence',
      input: ({ context }) => ({ machineId: context.machineId, userId: context.userId }),
      onSnapshot: {
        actions: [
          { type: 'tellTimelinePeers', params: ({ event }) => Object.keys(event.snapshot.context.peers) },
          { type: 'followReplay', params: ({ event }) => followedReplay(event.snapshot.context) },
          { type: 'followView', params: ({ event }) => followedView(event.snapshot.context) },
        ],
      },
    },
    {
      id: 'layout',
      systemId: 'layout',
      src: 'layout',
      onSnapshot: { actions: { type: 'tellCanvasLayout', params: ({ event }) => event.snapshot.context.layout } },
    },
    {
      id: 'canvas',
      systemId: 'canvas',
      src: 'canvas',
      input: ({ context, self }) => ({ canEdit: context.canEdit, editor: self }),
      onSnapshot: {
        actions: [
          { type: 'shareSelection', params: ({ event }) => event.snapshot.context.selection },
          { type: 'shareLook', params: ({ event }) => canvasLook(event.snapshot.context) },
        ],
      },
    },
    {
      id: 'code',
      systemId: 'code',
      src: 'code',
      input: ({ context, self }) => ({ definition: context.definition, editor: self }),
    },
    // Who may send is the room's to say (members, not guests); the database enforces it too.
    {
      id: 'simulation',
      systemId: 'simulation',
      src: 'simulation',
      input: ({ context, self }) => ({ machineId: context.machineId, canSend: context.canSend, host: self }),
      onSnapshot: { actions: { type: 'shareReplay', params: ({ event }) => replayLook(event.snapshot.context) } },
    },
    {
      id: 'timeline',
      systemId: 'timeline',
      src: 'timeline',
      // Restoring a version comes back here as `machine.replace`: ordinary, undoable ops.
      input: ({ context, self }) => ({ machineId: context.machineId, editor: self }),
    },
    // The Inspector's edits and imports come back here as `machine.edit`.
    {
      id: 'inspector',
      systemId: 'inspector',
      src: 'inspector',
      input: ({ context, self }) => ({ definition: context.definition, canEdit: context.canEdit, editor: self }),
    },
    {
      id: 'tests',
      systemId: 'tests',
      src: 'tests',
      input: ({ context }) => ({ machineId: context.machineId, definition: context.definition, version: 0 }),
      onSnapshot: { actions: { type: 'sharePlay', params: ({ event }) => event.snapshot.context.play } },
    },
    {
      id: 'testPlayback',
      systemId: 'testPlayback',
      src: 'testPlayback',
      input: ({ context }) => ({ machineId: context.machineId, userId: context.userId }),
    },
    // Named versions; restoring one comes back here as `machine.replace`, as the timeline's does.
    {
      id: 'versions',
      systemId: 'versions',
      src: 'versions',
      input: ({ context, self }) => ({ machineId: context.machineId, editor: self }),
    },
    // Who comments is who may send (members, not guests); the database enforces it too.
    {
      id: 'comments',
      systemId: 'comments',
      src: 'comments',
      input: ({ context }) => ({ machineId: context.machineId, userId: context.userId, canComment: context.canSend }),
    },
    // Proposals: Propose a change forks this machine; on a draft, it says who may edit it (machine.draftChanged).
    {
      id: 'proposals',
      systemId: 'proposals',
      src: 'proposals',
      input: ({ context, self }) => ({
        machineId: context.machineId,
        userId: context.userId,
        editor: self,
        canComment: context.canSend,
      }),
    },
  ],
  initial: 'open',
  states: {
    open: {
      tags: ['open'],
      on: {
        'machine.editableChanged': { actions: ['setEditable', 'tellEditable'] },
        'machine.draftChanged': { actions: ['setDraftLocked', 'tellEditable'] },
        'machine.edit': { actions: 'applyOps' },
        'machine.replace': { actions: 'replaceDefinition' },
        'machine.viewChanged': { actions: 'changeView' },
        'machine.replayChosen': { actions: 'unfollow' },
        'view.diff': { actions: 'showDiff' },
        'view.close': { actions: 'closeDiff' },
        'machine.reviewLaidOut': { actions: 'tellCanvasReview' },
        'edit.addChild': { actions: 'applyGesture' },
        'edit.addSibling': { actions: 'applyGesture' },
        'edit.rename': { actions: 'applyGesture' },
        'edit.delete': { actions: 'applyGesture' },
        'edit.connect': { actions: 'applyGesture' },
        'edit.event': { actions: 'applyGesture' },
        'edit.retarget': { actions: 'applyGesture' },
      },
    },
  },
});

export type OpenMachineMachine = typeof openMachineMachine;

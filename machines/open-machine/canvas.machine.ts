import { NO_FIT } from './canvas-fit.ts';
import { canvasSetup } from './canvas.setup.ts';

export * from './canvas.setup.ts';

/**
 * One diagram on screen: the viewport, the selection and the editing gesture under way.
 * Modes are states: `idle`, `panning`, `renaming` (an input over a state), `connecting`
 * (dragging from a state's handle), `retargeting` (dragging the end of a selected
 * transition's arrow onto another state), `labelling` (naming a new transition's event). The
 * machine never touches the definition: it tells what a gesture means (`edit.*`) to its
 * `editor` (the open machine, which turns it into model ops with src/lib/canvas-ops for
 * the document) and emits it for any other listener. New ids come in with the intent, so
 * the machine stays deterministic under test. Views branch on the tags, never on states.
 * It also keeps which compounds this person opened and closed (`choice`, over the default
 * of src/lib/layout/collapse.ts) and tells each change to its editor as
 * `machine.viewChanged`, which lays out the definition as shown.
 *
 * It fits the view itself: the first layout is fitted as soon as the stage's size is known;
 * a later layout whose extent changed a lot (src/lib/layout/fit.ts `extentChanged`) or whose
 * overview changed, and a new stage size, are fitted again while the view is still the one
 * a fit gave. A person's pan, zoom, jump, a found state framed (`canvas.find`, once a layout
 * shows it) or following someone makes the view `touched`; Fit (`canvas.fit`) fits the newest
 * layout and clears it. What is framed (a found state, a box) and what Fit fits land in the
 * part of the stage not covered: on a phone the open bottom sheet covers the stage's foot
 * (`canvas.stageCovered`); a new measure of it refits a view still the fit's. A box the
 * person tapped (a comment pin, `canvas.keepInView`) is framed above the sheet it opens only
 * if the sheet covers it; kept until the view moves some other way.
 */
export const canvasMachine = canvasSetup.createMachine({
  id: 'canvas',
  context: ({ input }) => ({
    canEdit: input.canEdit,
    editor: input.editor ?? null,
    viewport: { x: 24, y: 24, zoom: 1 },
    selection: [],
    editing: null,
    connect: null,
    choice: { opened: [], closed: [] },
    stage: null,
    covered: 0,
    fit: NO_FIT,
  }),
  initial: 'idle',
  on: {
    'canvas.setOpen': { actions: ['setOpen', 'tellView'] },
    'canvas.paneSized': { actions: 'sized' },
    'canvas.stageCovered': { actions: 'cover' },
    'canvas.laidOut': { actions: 'showLayout' },
    'canvas.zoomAt': { actions: ['zoomAt', 'touch'] },
    'canvas.fit': { actions: 'fitWhole' },
    'canvas.frame': { actions: 'frameBox' },
    'canvas.find': { actions: 'findState' },
    'canvas.keepInView': { actions: 'keep' },
    'canvas.editableChanged': [
      { guard: 'lostEdit', target: '.idle', actions: ['setEditable', 'stopEditing'] },
      { actions: 'setEditable' },
    ],
  },
  states: {
    idle: {
      tags: ['idle'],
      on: {
        'canvas.select': { actions: 'select' },
        'canvas.clearSelection': { actions: 'clearSelection' },
        'canvas.panStart': 'panning',
        'canvas.viewportFollowed': { actions: ['follow', 'touch'] },
        'canvas.viewFollowed': { actions: ['followView', 'touch'] },
        'canvas.renameStart': { guard: 'canEdit', target: 'renaming', actions: 'startRename' },
        'canvas.labelStart': { guard: 'canEdit', target: 'labelling', actions: 'startLabel' },
        'canvas.addChild': { guard: 'hasOneSelected', target: 'renaming', actions: ['addChild', 'editNew'] },
        'canvas.addSibling': { guard: 'hasOneSelected', target: 'renaming', actions: ['addSibling', 'editNew'] },
        'canvas.delete': { guard: 'hasSelection', actions: ['emitDelete', 'clearSelection'] },
        'canvas.connectStart': { guard: 'canEdit', target: 'connecting', actions: 'startConnect' },
        'canvas.retargetStart': { guard: 'canEdit', target: 'retargeting', actions: 'startRetarget' },
      },
    },
    panning: {
      tags: ['panning'],
      on: {
        'canvas.panBy': { actions: ['panBy', 'touch'] },
        'canvas.panEnd': 'idle',
      },
    },
    renaming: {
      tags: ['editing', 'renaming'],
      on: {
        'canvas.renameCommit': { target: 'idle', actions: ['emitRename', 'stopEditing'] },
        'canvas.cancel': { target: 'idle', actions: 'stopEditing' },
      },
    },
    connecting: {
      tags: ['connecting'],
      on: {
        'canvas.connectMove': { actions: 'moveConnect' },
        'canvas.connectEnd': [
          { guard: 'hasTarget', target: 'labelling', actions: ['emitConnect', 'labelNew'] },
          { target: 'idle', actions: 'stopEditing' },
        ],
        'canvas.cancel': { target: 'idle', actions: 'stopEditing' },
      },
    },
    // The same drag as connecting (the line from the source, the drop on a state), ending in an edit of the arrow.
    retargeting: {
      tags: ['connecting', 'retargeting'],
      on: {
        'canvas.connectMove': { actions: 'moveConnect' },
        'canvas.connectEnd': [
          { guard: 'hasTarget', target: 'idle', actions: ['emitRetarget', 'stopEditing'] },
          { target: 'idle', actions: 'stopEditing' },
        ],
        'canvas.cancel': { target: 'idle', actions: 'stopEditing' },
      },
    },
    labelling: {
      tags: ['editing', 'labelling'],
      on: {
        'canvas.labelCommit': { target: 'idle', actions: ['emitEvent', 'stopEditing'] },
        'canvas.cancel': { target: 'idle', actions: 'stopEditing' },
      },
    },
  },
});

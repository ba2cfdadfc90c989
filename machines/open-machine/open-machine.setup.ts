import { assertEvent, assign, enqueueActions, sendTo, setup, type SnapshotFrom } from 'xstate';
import { diffToOps } from '../../src/lib/canvas-ops/diff.ts';
import { opsForEdit, type CanvasEdit } from '../../src/lib/canvas-ops/gestures.ts';
import { overviewKey, type CollapseChoice } from '../../src/lib/layout/collapse.ts';
import type { Layout } from '../../src/lib/layout/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { ReplayLook } from '../../src/lib/ports/canvas-presence.ts';
import type { PlayShown } from '../../src/lib/ports/test-playback.ts';
import { samePlay, sharedPlay } from '../../src/lib/testing/panel.ts';
import { canvasPresenceMachine } from './canvas-presence.machine.ts';
import { canvasMachine } from './canvas.machine.ts';
import { nextPicture, type CanvasPictures } from './canvas-picture.ts';
import { codeViewMachine } from './code-view.machine.ts';
import { commentsMachine } from './comments.machine.ts';
import { documentMachine, type DocumentInput } from './document.machine.ts';
import { inspectorMachine } from './inspector.machine.ts';
import { samePicture, shownView } from '../../src/lib/layout/shown-view.ts';
import { layoutMachine } from './layout.machine.ts';
import { simulationMachine } from './simulation.machine.ts';
import { testPlaybackMachine } from './test-playback.machine.ts';
import { testsMachine } from './tests.machine.ts';
import { timelineMachine } from './timeline.machine.ts';
import { versionsMachine, type ViewDiffIntent } from './versions.machine.ts';
import { proposalsMachine } from './proposals.machine.ts';
import { sameLook, type ReplayRoute } from './replay-follow.ts';
import { sameView, type ViewRoute } from './view-follow.ts';
import type { View } from '../../src/lib/ports/canvas-presence.ts';

/** Intents and facts from outside: the room (permissions) and the code view or examples. */
export type OpenMachineEvent =
  /** Who may edit (owners, editors) and send simulation events (members, not guests). */
  | { type: 'machine.editableChanged'; canEdit: boolean; canSend?: boolean }
  /** Ops an editing surface made (the Inspector's fields and import): sent to the document as they are. */
  | { type: 'machine.edit'; ops: Op[] }
  /** Replace the whole definition (a code edit, an example): sent as the ops between the two. */
  | { type: 'machine.replace'; definition: MachineDefinition }
  /** The view's choices over which compounds show collapsed (each person's own): only what shows is laid out. */
  | ({ type: 'machine.viewChanged' } & CollapseChoice)
  /** The person chose a replay step themselves (from the simulation): follow mode ends. */
  | { type: 'machine.replayChosen' }
  /** Show a diff of two definitions on this person's canvas (a proposal's review): passed to the versions. */
  | ViewDiffIntent
  /** Show now again on this person's canvas (a proposal's diff hidden): passed to the versions. */
  | { type: 'view.close' }
  /** The versions' view (a version or diff) is laid out and the canvas shows it; null: the canvas shows now again. */
  | { type: 'machine.reviewLaidOut'; layout: Layout | null }
  /** This machine is a proposal's draft: whether this person may edit it (its proposals child says). */
  | { type: 'machine.draftChanged'; editable: boolean }
  | CanvasEdit;

export interface OpenMachineInput {
  machineId: string;
  userId: string;
  canEdit: boolean;
  /** Whether this person may send simulation events (a member, not a guest); false when absent. */
  canSend?: boolean;
  /** The document's settings from the composition root: this tab's client id, the op model, batch ids. */
  document: Omit<DocumentInput, 'machineId'>;
}

export interface OpenMachineContext extends OpenMachineInput {
  /** The document's current definition (what gestures are applied against); null until loaded. */
  definition: MachineDefinition | null;
  /** The view's choices over the default collapsed compounds (src/lib/layout/collapse.ts). */
  choice: CollapseChoice;
  /** What the layout was last asked for (the definition as shown): the same picture is not asked for twice. */
  shown: MachineDefinition | null;
  /** The replay steps last routed (src: machines/open-machine/replay-follow.ts): each is passed on only when it changes. */
  replay: ReplayRoute;
  /** The views last routed (machines/open-machine/view-follow.ts): each is passed on only when it changes. */
  view: ViewRoute;
  canSend: boolean;
  /** The document's version and definition last told to the tests, timeline, versions and proposals. */
  version: number | null;
  toldDefinition: MachineDefinition | null;
  /** The canvas selection last told to the Inspector. */
  selection: string[];
  /** The play last shared with the room (null: none). */
  played: PlayShown | null;
  /** The live chart's newest layout, a version's or diff's in its place, and what the canvas was told (it fits it). */
  pictures: CanvasPictures;
  /** A proposal's draft this person may not edit (not its author or an invitee, or merged or closed). */
  draftLocked: boolean;
}

/** Whether this person edits here: the room's say, unless the machine is a draft they may not edit. */
const editsHere = (context: OpenMachineContext): boolean => context.canEdit && !context.draftLocked;

const sameStrings = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

type DocumentSnapshot = SnapshotFrom<typeof documentMachine>;

/** The definition a document snapshot shows: the one place outside the document that knows where it lives. */
export const documentDefinition = (snapshot: DocumentSnapshot): MachineDefinition | null =>
  snapshot.context.doc?.local ?? null;

/** The document's version (the log's head it has applied), or null before it loads. */
export const documentVersion = (snapshot: DocumentSnapshot): number | null => snapshot.context.doc?.version ?? null;

/**
 * What the layout is asked for: the definition with its collapsed compounds closed
 * (worked out from the last one when an edit only changed states' contents), unless it
 * draws the same picture as the last one asked for (`last`).
 */
function newlyShown(
  last: MachineDefinition | null,
  definition: MachineDefinition,
  choice: CollapseChoice,
): MachineDefinition | null {
  const shown = shownView(definition, choice).view;
  return last && samePicture(last, shown) ? null : shown;
}

/** Fit's overview for the live chart in this pane: which compounds it collapses, as one key. */
const liveOverview = (context: OpenMachineContext): string => overviewKey(context.definition, context.choice.pane);

/** The open machine's setup: its types, children, actions and guards (the chart is open-machine.machine.ts). */
export const openMachineSetup = setup({
  types: {
    input: {} as OpenMachineInput,
    context: {} as OpenMachineContext,
    events: {} as OpenMachineEvent,
    children: {} as {
      document: 'document';
      presence: 'presence';
      layout: 'layout';
      canvas: 'canvas';
      code: 'code';
      simulation: 'simulation';
      timeline: 'timeline';
      inspector: 'inspector';
      tests: 'tests';
      testPlayback: 'testPlayback';
      versions: 'versions';
      comments: 'comments';
    },
    tags: {} as 'open',
  },
  // The bare machines: the composition root provides them wired to real adapters, tests to fakes.
  actors: {
    document: documentMachine,
    presence: canvasPresenceMachine,
    layout: layoutMachine,
    canvas: canvasMachine,
    code: codeViewMachine,
    simulation: simulationMachine,
    timeline: timelineMachine,
    inspector: inspectorMachine,
    tests: testsMachine,
    testPlayback: testPlaybackMachine,
    versions: versionsMachine,
    comments: commentsMachine,
    proposals: proposalsMachine,
  },
  actions: {
    followDocument: enqueueActions(({ context, enqueue }, definition: MachineDefinition | null) => {
      if (!definition || definition === context.definition) return;
      enqueue.assign({ definition });
      const shown = newlyShown(context.shown, definition, context.choice);
      if (shown) {
        enqueue.assign({ shown });
        enqueue.sendTo('layout', { type: 'layout.request', definition: shown });
      }
      enqueue.sendTo('code', { type: 'code.definitionChanged', definition });
      enqueue.sendTo('inspector', { type: 'inspector.definitionChanged', definition });
    }),
    /**
     * The head the document has applied, and this person's definition, to the panels that
     * follow them, only when either changed: the document's snapshot comes with every event
     * it takes (a batch shown ahead, its copy from the log, a time-out that changes nothing),
     * and most leave both as they were. The tests judge staleness and run against the
     * definition at its version (anyone's edit, or an acknowledgement); the timeline reads
     * the log (with authors) up to the head; named versions name the head (a diff with now
     * compares this person's definition); proposals fork at the head, from this definition.
     */
    tellHead: enqueueActions(({ context, enqueue }, version: number | null) => {
      if (!context.definition || (version === context.version && context.definition === context.toldDefinition)) return;
      const definition = context.definition;
      enqueue.assign({ version, toldDefinition: definition });
      enqueue.sendTo('tests', { type: 'tests.definitionChanged', definition, version: version ?? 0 });
      if (version === null) return;
      enqueue.sendTo('timeline', { type: 'timeline.headMoved', version });
      enqueue.sendTo('versions', { type: 'versions.headMoved', version, definition });
      enqueue.sendTo('proposals', { type: 'proposals.headMoved', version, definition });
    }),
    tellTimelinePeers: enqueueActions(({ enqueue }, userIds: string[]) => {
      enqueue.sendTo('timeline', { type: 'timeline.peersChanged', userIds, at: new Date().toISOString() });
    }),
    shareSelection: enqueueActions(({ context, enqueue }, selection: string[]) => {
      if (sameStrings(selection, context.selection)) return;
      enqueue.assign({ selection });
      enqueue.sendTo('presence', { type: 'presence.select', selection });
      enqueue.sendTo('inspector', { type: 'inspector.selectionChanged', selection });
    }),
    /** What this person plays in the tests goes to the room, when it changes (a script too long plays only here). */
    sharePlay: enqueueActions(({ context, enqueue }, play: PlayShown | null) => {
      const shared = sharedPlay(play);
      if (samePlay(context.played, shared)) return;
      enqueue.assign({ played: shared });
      enqueue.sendTo('testPlayback', { type: 'playback.show', play: shared });
    }),
    applyOps: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'machine.edit');
      if (editsHere(context) && event.ops.length > 0) enqueue.sendTo('document', { type: 'doc.edit', ops: event.ops });
    }),
    unfollow: sendTo('presence', { type: 'presence.unfollow' }),
    /** A diff another part asked to see (a proposal's review) goes to the versions, which draw it. */
    showDiff: sendTo('versions', ({ event }) => {
      assertEvent(event, 'view.diff');
      return event;
    }),
    closeDiff: sendTo('versions', { type: 'versions.close' }),
    applyGesture: enqueueActions(({ context, event, enqueue }) => {
      if (!context.definition || !event.type.startsWith('edit.')) return;
      const ops = opsForEdit(context.definition, event as CanvasEdit);
      if (ops.length > 0) enqueue.sendTo('document', { type: 'doc.edit', ops });
    }),
    replaceDefinition: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'machine.replace');
      if (!context.definition || !editsHere(context)) return;
      const ops = diffToOps(context.definition, event.definition);
      if (ops.length > 0) enqueue.sendTo('document', { type: 'doc.edit', ops });
    }),
    changeView: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'machine.viewChanged');
      const choice: CollapseChoice = {
        opened: event.opened,
        closed: event.closed,
        budget: event.budget,
        pane: event.pane,
      };
      const shown = context.definition ? newlyShown(context.shown, context.definition, choice) : null;
      enqueue.assign(shown ? { choice, shown } : { choice });
      if (shown) enqueue.sendTo('layout', { type: 'layout.request', definition: shown });
      // A version or diff shown on the canvas is collapsed and laid out for the same pane.
      if (event.pane) enqueue.sendTo('versions', { type: 'versions.paneSized', ...event.pane });
    }),
    /** A new layout of the live chart; the canvas gets it unless a version or diff is shown in its place. */
    tellCanvasLayout: enqueueActions(({ context, enqueue }, layout: Layout | null) => {
      if (!layout || layout === context.pictures.live) return;
      const { pictures, fact } = nextPicture(context.pictures, { live: layout }, () => liveOverview(context));
      enqueue.assign({ pictures });
      if (fact) enqueue.sendTo('canvas', fact);
    }),
    /** A version or diff laid out for the canvas, or gone (the live chart shows again). */
    tellCanvasReview: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'machine.reviewLaidOut');
      if (event.layout === context.pictures.review) return;
      const { pictures, fact } = nextPicture(context.pictures, { review: event.layout }, () => liveOverview(context));
      enqueue.assign({ pictures });
      if (fact) enqueue.sendTo('canvas', fact);
    }),
    /** Each person's replay step goes out on presence. */
    shareReplay: enqueueActions(({ context, enqueue }, replay: ReplayLook | null) => {
      if (sameLook(context.replay.shared, replay)) return;
      enqueue.assign({ replay: { ...context.replay, shared: replay } });
      enqueue.sendTo('presence', { type: 'presence.replay', replay });
    }),
    /** What this person looks at goes out on presence. */
    shareLook: enqueueActions(({ context, enqueue }, look: View | null) => {
      if (look === null || sameView(context.view.look, look)) return;
      enqueue.assign({ view: { ...context.view, look } });
      enqueue.sendTo('presence', { type: 'presence.look', view: look });
    }),
    /** The followed person's view goes to the canvas. */
    followView: enqueueActions(({ context, enqueue }, view: View | null) => {
      if (sameView(context.view.followed, view)) return;
      enqueue.assign({ view: { ...context.view, followed: view } });
      if (view) enqueue.sendTo('canvas', { type: 'canvas.viewFollowed', view });
    }),
    /** The followed person's step goes to the simulation. */
    followReplay: enqueueActions(({ context, enqueue }, replay: ReplayLook | null) => {
      if (sameLook(context.replay.followed, replay)) return;
      enqueue.assign({ replay: { ...context.replay, followed: replay } });
      enqueue.sendTo('simulation', { type: 'sim.followed', replay });
    }),
    setEditable: assign(({ context, event }) => {
      assertEvent(event, 'machine.editableChanged');
      return { canEdit: event.canEdit, canSend: event.canSend ?? context.canSend };
    }),
    setDraftLocked: assign(({ event }) => {
      assertEvent(event, 'machine.draftChanged');
      return { draftLocked: !event.editable };
    }),
    tellEditable: enqueueActions(({ context, enqueue }) => {
      enqueue.sendTo('canvas', { type: 'canvas.editableChanged', canEdit: editsHere(context) });
      enqueue.sendTo('inspector', { type: 'inspector.editableChanged', canEdit: editsHere(context) });
      enqueue.sendTo('code', { type: 'code.editableChanged', canEdit: editsHere(context) });
      enqueue.sendTo('simulation', { type: 'sim.canSendChanged', canSend: context.canSend });
      enqueue.sendTo('comments', { type: 'comments.canCommentChanged', canComment: context.canSend });
      enqueue.sendTo('proposals', { type: 'proposals.canCommentChanged', canComment: context.canSend });
    }),
  },
});

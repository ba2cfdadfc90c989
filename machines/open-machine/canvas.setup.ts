import { assertEvent, assign, enqueueActions, setup, type AnyActorRef } from 'xstate';
import type { CanvasEdit } from '../../src/lib/canvas-ops/gestures.ts';
import { extentOf, type Box, type Layout } from '../../src/lib/layout/types.ts';
import {
  fitIn,
  framing,
  initialBox,
  inView,
  measured,
  refitsCover,
  refitsLayout,
  refitsStage,
  visibleStage,
  type FitState,
} from './canvas-fit.ts';
import type { View } from '../../src/lib/ports/canvas-presence.ts';

export interface Viewport {
  /** Screen = world * zoom + (x, y). */
  x: number;
  y: number;
  zoom: number;
}

export type CanvasIntent =
  | { type: 'canvas.select'; id: string; additive: boolean }
  | { type: 'canvas.clearSelection' }
  | { type: 'canvas.panStart' }
  | { type: 'canvas.panBy'; dx: number; dy: number }
  | { type: 'canvas.panEnd' }
  | { type: 'canvas.zoomAt'; factor: number; x: number; y: number }
  /** Fit the whole chart (the newest layout) in the stage; the view is the fit's again. */
  | { type: 'canvas.fit' }
  /** Bring this state into view (a found state), now or once a layout shows it: the person chose the view. */
  | { type: 'canvas.find'; id: string }
  /** Bring this box of the shown picture into view with room around it (a change picked, a thread's anchor). */
  | { type: 'canvas.frame'; box: Box }
  /** Keep this box of the picture in view (a comment pin tapped): framed only if the sheet it opens covers it. */
  | { type: 'canvas.keepInView'; box: Box }
  | { type: 'canvas.renameStart'; id: string }
  | { type: 'canvas.renameCommit'; key: string }
  | { type: 'canvas.cancel' }
  | { type: 'canvas.addChild'; id: string }
  | { type: 'canvas.addSibling'; id: string }
  | { type: 'canvas.delete' }
  | { type: 'canvas.connectStart'; source: string; x: number; y: number }
  /** `over`: the state under the pointer, shown as the drop target. */
  | { type: 'canvas.connectMove'; x: number; y: number; over?: string | null }
  | { type: 'canvas.connectEnd'; target: string | null; transitionId: string }
  | { type: 'canvas.retargetStart'; transition: string; index: number; source: string; x: number; y: number }
  | { type: 'canvas.labelStart'; id: string }
  | { type: 'canvas.labelCommit'; event: string }
  /** Open (or close) these compounds in this person's view (a view choice, not an edit). */
  | { type: 'canvas.setOpen'; ids: string[]; open: boolean }
  /** The diagram's pane was measured (a fact from the page's layout, not a person's intent). */
  | { type: 'canvas.paneSized'; width: number; height: number }
  /** How many px of the stage's foot lie under something drawn over it (the phone's bottom sheet), as measured. */
  | { type: 'canvas.stageCovered'; bottom: number };

/**
 * Facts from outside: permissions changed, the view moved to a point (a minimap click), the
 * person followed looks somewhere else (`view`: the world point at the centre of their
 * stage, shown here at the centre of this one), a new layout is shown (from the open
 * machine; `overview`: the compounds Fit's overview collapses in this pane, as one key).
 */
export type CanvasFact =
  | { type: 'canvas.editableChanged'; canEdit: boolean }
  | { type: 'canvas.laidOut'; layout: Layout; overview: string; fresh?: boolean }
  | { type: 'canvas.viewportFollowed'; viewport: Viewport }
  | { type: 'canvas.viewFollowed'; view: View };

export type CanvasEvent = CanvasIntent | CanvasFact;

/** What a gesture means (defined with its meaning as ops, in src/lib/canvas-ops). */
export type { CanvasEdit };

/** Who is told each edit: the actor that owns the document (the open machine). */
export type CanvasEditor = AnyActorRef;

export interface CanvasInput {
  canEdit: boolean;
  editor?: CanvasEditor | null;
}

export interface CanvasContext {
  canEdit: boolean;
  editor: CanvasEditor | null;
  viewport: Viewport;
  selection: string[];
  /** The state being renamed or the transition being labelled. */
  editing: string | null;
  /** The drag line while connecting or retargeting, in world coordinates. */
  connect: DragLine | null;
  /** The compounds this person opened and closed (src/lib/layout/collapse.ts). */
  choice: ViewChoice;
  /** The stage's size in pixels as last measured (null before): what this person looks at, and how a followed view shows. */
  stage: { width: number; height: number } | null;
  /** How many px of the stage's foot are covered (the phone's open bottom sheet): framing keeps to the rest. */
  covered: number;
  /** The layout shown and what the last fit framed (null before the first layout), and whether the person has moved the view since. */
  fit: FitState;
}

export type { FitState };

export interface ViewChoice {
  opened: string[];
  closed: string[];
  /** The diagram pane's size (in steps of PANE_STEP px), once measured: Fit's overview is chosen for it. */
  pane?: { width: number; height: number };
}

/** The pane is followed in steps, so a panel sliding open re-lays out once, not per frame. */
export const PANE_STEP = 40;

/** The choice with `ids` opened (or closed): each id in one list only. */
export function withOpen(choice: ViewChoice, ids: readonly string[], open: boolean): ViewChoice {
  const drop = (list: string[]) => list.filter((id) => !ids.includes(id));
  const add = (list: string[]) => [...drop(list), ...ids];
  return open
    ? { ...choice, opened: add(choice.opened), closed: drop(choice.closed) }
    : { ...choice, opened: drop(choice.opened), closed: add(choice.closed) };
}

export interface DragLine {
  source: string;
  x: number;
  y: number;
  /** The state under the pointer (the drop target), if any. */
  over?: string | null;
  /** While retargeting: which arrow of which transition is being moved. */
  retarget?: { transition: string; index: number };
}

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 4;
const clampZoom = (z: number): number => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));
const stepOf = (px: number): number => Math.round(px / PANE_STEP) * PANE_STEP;
/** A measure of the sheet that is no number covers nothing. */
const coveredOf = (bottom: number): number => (Number.isFinite(bottom) ? Math.max(0, bottom) : 0);
export type CanvasTag = 'idle' | 'panning' | 'editing' | 'renaming' | 'labelling' | 'connecting' | 'retargeting';

type EditOf = (args: { context: CanvasContext; event: CanvasEvent }) => CanvasEdit;

/** Tells the editor what a gesture means, and emits it for other listeners. */
const tell = (editOf: EditOf) =>
  enqueueActions<CanvasContext, CanvasEvent, undefined, CanvasEvent, never, never, never, never, CanvasEdit>(
    ({ context, event, enqueue }) => {
      const edit = editOf({ context, event });
      if (context.editor) enqueue.sendTo(context.editor, edit);
      enqueue.emit(edit);
    },
  );

/** The canvas machine's setup: its types, actions, guards (the chart is canvas.machine.ts). */
/** A measured pane whose size, in steps, differs from the one the choice holds. */
function paneChanged(
  choice: { pane?: { width: number; height: number } | null },
  size: { width: number; height: number },
) {
  if (!(size.width > 0 && size.height > 0)) return false;
  const pane = choice.pane;
  return !pane || pane.width !== stepOf(size.width) || pane.height !== stepOf(size.height);
}

export const canvasSetup = setup({
  types: {
    context: {} as CanvasContext,
    events: {} as CanvasEvent,
    input: {} as CanvasInput,
    emitted: {} as CanvasEdit,
    tags: {} as CanvasTag,
  },
  guards: {
    canEdit: ({ context }) => context.canEdit,
    hasSelection: ({ context }) => context.canEdit && context.selection.length > 0,
    hasOneSelected: ({ context }) => context.canEdit && context.selection.length === 1,
    hasTarget: ({ event }) => event.type === 'canvas.connectEnd' && event.target !== null,
    lostEdit: ({ event }) => event.type === 'canvas.editableChanged' && !event.canEdit,
  },
  actions: {
    select: assign(({ context, event }) => {
      assertEvent(event, 'canvas.select');
      if (!event.additive) return { selection: [event.id] };
      const has = context.selection.includes(event.id);
      return { selection: has ? context.selection.filter((s) => s !== event.id) : [...context.selection, event.id] };
    }),
    clearSelection: assign({ selection: [] }),
    panBy: assign(({ context, event }) => {
      assertEvent(event, 'canvas.panBy');
      return { viewport: { ...context.viewport, x: context.viewport.x + event.dx, y: context.viewport.y + event.dy } };
    }),
    zoomAt: assign(({ context, event }) => {
      assertEvent(event, 'canvas.zoomAt');
      const { x, y, zoom } = context.viewport;
      const next = clampZoom(zoom * event.factor);
      const k = next / zoom;
      return { viewport: { zoom: next, x: event.x - (event.x - x) * k, y: event.y - (event.y - y) * k } };
    }),
    takeLayout: assign(({ context, event }) => {
      assertEvent(event, 'canvas.laidOut');
      return { fit: { ...context.fit, shown: { layout: event.layout, overview: event.overview } } };
    }),
    /**
     * A new layout is shown. The first is fitted, and one whose extent or overview changed
     * while the view is still the fit's (decided here, not in guards: one transition keeps
     * this chart, which is one of the examples, readable whole at Fit).
     */
    showLayout: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'canvas.laidOut');
      if (context.fit.shown?.layout === event.layout) return;
      const refit = event.fresh === true || refitsLayout(context.fit, event.layout, event.overview);
      enqueue('takeLayout');
      if (refit) enqueue('fitLayout');
      enqueue('frameSought');
    }),
    /**
     * The stage measured: a new size refits a view no one moved since its fit, and a new pane
     * step re-lays out the chart for it (Fit's overview). One action, not guarded branches:
     * this chart is one of the examples, and each transition is a label it must show readable at Fit.
     */
    sized: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'canvas.paneSized');
      const refit = refitsStage(context.stage, context.fit, event);
      enqueue('setStage');
      if (refit) enqueue('fitLayout');
      if (!paneChanged(context.choice, event)) return;
      enqueue('setPane');
      enqueue('tellView');
    }),
    /** Fit pressed: the whole chart, and no box is kept any more. */
    fitWhole: enqueueActions(({ enqueue }) => {
      enqueue('fitLayout');
      enqueue('forget');
    }),
    /** A state to find: sought, framed once shown; no box is kept any more. */
    findState: enqueueActions(({ enqueue }) => {
      enqueue('seek');
      enqueue('frameSought');
      enqueue('forget');
    }),
    /** The sheet over the stage's foot was measured; a new measure refits a view no one moved since its fit. */
    cover: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'canvas.stageCovered');
      const refit = refitsCover(context.covered, context.fit, coveredOf(event.bottom));
      enqueue('setCovered');
      if (refit) enqueue('fitLayout');
      enqueue('revealKept');
    }),
    /**
     * The whole chart (the newest layout) in view, in the part of the stage not under the
     * phone's open sheet, showing the chart's start on a phone; the view is the fit's again.
     * Before the stage is measured only that is noted: its size fits it.
     */
    fitLayout: assign(({ context }) => {
      const { shown } = context.fit;
      if (!shown) return {};
      const fitted = { width: shown.layout.width, height: shown.layout.height, overview: shown.overview };
      const fit = { ...context.fit, fitted, touched: false };
      if (!measured(context.stage)) return { fit };
      const seen = visibleStage(context.stage, context.covered);
      return { fit, viewport: fitIn(seen, extentOf(shown.layout), initialBox(shown.layout)) };
    }),
    /** A box the person chose on the canvas, kept (the sheet it opens may cover it), and shown if it is covered now. */
    keep: enqueueActions(({ enqueue }) => {
      enqueue('setKept');
      enqueue('revealKept');
    }),
    setKept: assign(({ context, event }) => {
      assertEvent(event, 'canvas.keepInView');
      return { fit: { ...context.fit, kept: event.box } };
    }),
    /** The view moved some other way: no box is kept any more. */
    forget: assign(({ context }) => ({ fit: { ...context.fit, kept: null } })),
    /** The kept box, when the sheet covers it (or it is out of the stage), framed above the sheet; left be while it shows. */
    revealKept: assign(({ context }) => {
      const { kept } = context.fit;
      if (!kept || inView(context.stage, context.covered, context.viewport, kept)) return {};
      const viewport = framing(context.stage, kept, context.covered);
      return viewport ? { viewport, fit: { ...context.fit, touched: true } } : {};
    }),
    /** A found state: sought until a layout shows it (its compounds are being opened), then framed. */
    seek: assign(({ context, event }) => {
      assertEvent(event, 'canvas.find');
      return { fit: { ...context.fit, seeking: event.id } };
    }),
    /** The sought state, once the shown layout has it, brought into view with room around it: the person chose the view. */
    frameSought: assign(({ context }) => {
      const { seeking, shown } = context.fit;
      const node = seeking === null ? undefined : shown?.layout.nodes[seeking];
      const viewport = node ? framing(context.stage, node, context.covered) : null;
      return viewport ? { viewport, fit: { ...context.fit, seeking: null, touched: true } } : {};
    }),
    /** A box of the picture framed, as a found state is: the person chose the view. */
    frameBox: assign(({ context, event }) => {
      assertEvent(event, 'canvas.frame');
      const viewport = framing(context.stage, event.box, context.covered);
      return viewport ? { viewport, fit: { ...context.fit, touched: true, kept: null } } : {};
    }),
    /** The person moved the view (or follows someone who did): a new layout or size leaves it be, and no box is kept. */
    touch: assign(({ context }) => ({ fit: { ...context.fit, touched: true, kept: null } })),
    follow: assign(({ event }) => {
      assertEvent(event, 'canvas.viewportFollowed');
      return { viewport: event.viewport };
    }),
    followView: assign(({ context, event }) => {
      assertEvent(event, 'canvas.viewFollowed');
      const { x, y, zoom } = event.view;
      const stage = context.stage ?? { width: 0, height: 0 };
      return { viewport: { zoom, x: stage.width / 2 - x * zoom, y: stage.height / 2 - y * zoom } };
    }),
    setEditable: assign(({ event }) => {
      assertEvent(event, 'canvas.editableChanged');
      return { canEdit: event.canEdit };
    }),
    startRename: assign(({ event }) => {
      assertEvent(event, 'canvas.renameStart');
      return { editing: event.id, selection: [event.id] };
    }),
    editSelected: assign(({ context }) => ({ editing: context.selection[0] ?? null })),
    stopEditing: assign({ editing: null, connect: null }),
    emitRename: tell(({ context, event }) => {
      assertEvent(event, 'canvas.renameCommit');
      return { type: 'edit.rename', id: context.editing ?? '', key: event.key };
    }),
    addChild: tell(({ context, event }) => {
      assertEvent(event, 'canvas.addChild');
      return { type: 'edit.addChild', parent: context.selection[0] ?? '', id: event.id };
    }),
    addSibling: tell(({ context, event }) => {
      assertEvent(event, 'canvas.addSibling');
      return { type: 'edit.addSibling', sibling: context.selection[0] ?? '', id: event.id };
    }),
    editNew: assign(({ event }) => {
      assertEvent(event, ['canvas.addChild', 'canvas.addSibling']);
      return { editing: event.id, selection: [event.id] };
    }),
    emitDelete: tell(({ context }) => ({ type: 'edit.delete', ids: context.selection })),
    startConnect: assign(({ event }) => {
      assertEvent(event, 'canvas.connectStart');
      return { connect: { source: event.source, x: event.x, y: event.y } };
    }),
    moveConnect: assign(({ context, event }) => {
      assertEvent(event, 'canvas.connectMove');
      return { connect: context.connect ? { ...context.connect, x: event.x, y: event.y, over: event.over } : null };
    }),
    emitConnect: tell(({ context, event }) => {
      assertEvent(event, 'canvas.connectEnd');
      return {
        type: 'edit.connect',
        source: context.connect?.source ?? '',
        target: event.target ?? '',
        id: event.transitionId,
      };
    }),
    startRetarget: assign(({ event }) => {
      assertEvent(event, 'canvas.retargetStart');
      const { transition, index, source, x, y } = event;
      return { connect: { source, x, y, retarget: { transition, index } } };
    }),
    emitRetarget: tell(({ context, event }) => {
      assertEvent(event, 'canvas.connectEnd');
      const r = context.connect?.retarget;
      return { type: 'edit.retarget', id: r?.transition ?? '', index: r?.index ?? 0, target: event.target ?? '' };
    }),
    labelNew: assign(({ event }) => {
      assertEvent(event, 'canvas.connectEnd');
      return { editing: event.transitionId, selection: [event.transitionId], connect: null };
    }),
    startLabel: assign(({ event }) => {
      assertEvent(event, 'canvas.labelStart');
      return { editing: event.id, selection: [event.id] };
    }),
    emitEvent: tell(({ context, event }) => {
      assertEvent(event, 'canvas.labelCommit');
      return { type: 'edit.event', id: context.editing ?? '', event: event.event };
    }),
    setOpen: assign(({ context, event }) => {
      assertEvent(event, 'canvas.setOpen');
      return { choice: withOpen(context.choice, event.ids, event.open) };
    }),
    setStage: assign(({ event }) => {
      assertEvent(event, 'canvas.paneSized');
      return { stage: { width: event.width, height: event.height } };
    }),
    setCovered: assign(({ event }) => {
      assertEvent(event, 'canvas.stageCovered');
      return { covered: coveredOf(event.bottom) };
    }),
    setPane: assign(({ context, event }) => {
      assertEvent(event, 'canvas.paneSized');
      const pane = { width: stepOf(event.width), height: stepOf(event.height) };
      return { choice: { ...context.choice, pane } };
    }),
    /** The editor lays out what shows by this choice. */
    tellView: enqueueActions(({ context, enqueue }) => {
      if (context.editor) enqueue.sendTo(context.editor, { type: 'machine.viewChanged', ...context.choice });
    }),
  },
});

import { extentChanged, fitViewport, fitZoomFloor, type FitViewport as Viewport } from '../../src/lib/layout/fit.ts';
import type { Box, Layout } from '../../src/lib/layout/types.ts';

/**
 * The canvas's fitting, apart from its gestures: what the view frames (the whole chart, a
 * found state, a picked box) and the rules for when a new layout or stage size refits a
 * view the person has not moved since its last fit. Used by canvas.machine.ts.
 */

type Size = { width: number; height: number };

export interface FitState {
  /** The newest layout and its overview: what Fit frames. */
  shown: { layout: Layout; overview: string } | null;
  /** The chart's extent and overview the last fit framed (null before the first layout). */
  fitted: { width: number; height: number; overview: string } | null;
  /** The person moved the view since the last fit: no new layout or stage size refits it. */
  touched: boolean;
  /** A found state not laid out yet (its compounds are being opened): framed when a layout shows it. */
  seeking: string | null;
  /** A box the person just chose on the canvas (a comment pin tapped): framed if the sheet it opens covers it. */
  kept: Box | null;
}

export const NO_FIT: FitState = { shown: null, fitted: null, touched: false, seeking: null, kept: null };

/** The viewport that shows `bounds` whole in the stage; on a phone no smaller than readable names, keeping `focus` in view. */
export const fitIn = (stage: Size, bounds: Box, focus: Box | null): Viewport =>
  fitViewport(bounds, stage.width, stage.height, 32, fitZoomFloor(stage.width), focus);

/** Where the chart starts: the root's initial state, kept in view when the chart cannot show whole (a phone). */
export function initialBox(layout: Layout): Box | null {
  const root = Object.values(layout.nodes).find((n) => n.parent === null);
  const initial = root?.initial ? layout.nodes[root.initial] : undefined;
  return initial ? { x: initial.x, y: initial.y, width: initial.width, height: initial.height } : null;
}

/** The first layout, or one whose extent changed a lot or made for another overview while the view is still the fit's. */
export function refitsLayout(fit: FitState, layout: Layout, overview: string): boolean {
  if (!fit.fitted) return true;
  return !fit.touched && (extentChanged(fit.fitted, layout) || fit.fitted.overview !== overview);
}

/** A new stage size while the view is still the fit's (after the first layout). */
export function refitsStage(stage: Size | null, fit: FitState, size: Size): boolean {
  const resized = !stage || stage.width !== size.width || stage.height !== size.height;
  return resized && measured(size) && fit.fitted !== null && !fit.touched;
}

/** A new measure of the sheet over the stage's foot while the view is still the fit's: the chart fits what is left. */
export function refitsCover(covered: number, fit: FitState, next: number): boolean {
  return covered !== next && fit.fitted !== null && !fit.touched;
}

/** The least of the stage's height a framing keeps in view, whatever lies over the rest. */
export const MIN_VISIBLE = 120;

/**
 * The part of the stage a person sees: all of it but its foot under something drawn over
 * it (`covered` px, the phone's bottom sheet), keeping at least MIN_VISIBLE px (or the
 * whole stage when it is smaller than that). It starts at the stage's top, so a viewport
 * that fits it fits the stage the same way.
 */
export function visibleStage(stage: Size, covered: number): Size {
  const under = Number.isFinite(covered) ? Math.min(Math.max(0, covered), stage.height - MIN_VISIBLE) : 0;
  return { width: stage.width, height: stage.height - Math.max(0, under) };
}

/**
 * The view with `box` in it, with room around it (a found state, a thread's anchor), in the
 * part of the stage not covered (`covered` px at its foot), or none before the stage is measured.
 */
export function framing(stage: Size | null, box: Box, covered = 0): Viewport | null {
  if (!measured(stage)) return null;
  const seen = visibleStage(stage, covered);
  const pad = { x: Math.max(160, seen.width / 3), y: Math.max(120, seen.height / 3) };
  const bounds = { x: box.x - pad.x, y: box.y - pad.y, width: box.width + 2 * pad.x, height: box.height + 2 * pad.y };
  // Where the room around it cannot show whole (a small visible part), the box stays centred.
  return fitIn(seen, bounds, box);
}

/** Whether `box` shows whole in the part of the stage not covered, at `viewport` (true before the stage is measured). */
export function inView(stage: Size | null, covered: number, viewport: Viewport, box: Box): boolean {
  if (!measured(stage)) return true;
  const seen = visibleStage(stage, covered);
  const { x, y, zoom } = viewport;
  const left = box.x * zoom + x;
  const top = box.y * zoom + y;
  const right = (box.x + box.width) * zoom + x;
  const bottom = (box.y + box.height) * zoom + y;
  return left >= 0 && top >= 0 && right <= seen.width && bottom <= seen.height;
}

export const measured = (stage: Size | null): stage is Size => stage !== null && stage.width > 0 && stage.height > 0;

import type { MachineDefinition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import type { LayoutCache } from './cache.ts';
import { layoutDefinition, type ElkLike } from './run.ts';
import type { Layout, LayoutDirection, LayoutHints } from './types.ts';

/**
 * Which way a chart flows. Left to right suits most statecharts, but one whose transition
 * labels are long lays out very wide (the session example came out 6.9:1), and at Fit in
 * a pane of about 1.1:1 its names were 5 px tall. So when a chart's picture is far from
 * the pane's shape, it is laid out the other way as well and the one that fits the pane
 * larger is kept.
 *
 * The choice is sticky: it travels in the layout hints, and is made again only for a
 * chart with no previous layout or after a big change (a paste, a peer's new chart), so
 * an ordinary edit never turns the whole picture.
 */

/** A picture whose aspect is this many times the pane's (or its inverse) tries the other direction. */
export const ASPECT_MISMATCH = 2;

/**
 * A change of at least this many states, and by at least half or double, chooses the
 * direction again: a paste, a peer's new chart, or Fit's overview collapsing a chart's
 * compounds (the session example shows 6 of its 18 states, and its overview reads best
 * the other way).
 */
export const BIG_CHANGE_STATES = 10;

/** The zoom a Fit would give a `width` × `height` picture in a pane of this aspect, 1 unit tall. */
export function fitScale(size: { width: number; height: number }, aspect: number): number {
  return Math.min(aspect / Math.max(1, size.width), 1 / Math.max(1, size.height));
}

/** Whether this layout request may choose the direction (rather than keep the one chosen before). */
export function mayChooseDirection(def: MachineDefinition, hints: LayoutHints | null): boolean {
  if (!hints?.direction) return true;
  const before = Object.keys(hints.sizes).length;
  const now = Object.keys(def.states).length;
  return Math.abs(now - before) >= BIG_CHANGE_STATES && (now >= 2 * before || 2 * now <= before);
}

/** Whether a picture is far from the pane's shape. */
export function mismatched(size: { width: number; height: number }, aspect: number): boolean {
  const ratio = size.width / Math.max(1, size.height);
  return ratio > aspect * ASPECT_MISMATCH || ratio < aspect / ASPECT_MISMATCH;
}

const other = (d: LayoutDirection): LayoutDirection => (d === 'RIGHT' ? 'DOWN' : 'RIGHT');

/**
 * `layoutDefinition` for a pane of `aspect` (width / height; null when unknown): the
 * previous direction, or left to right, and the other one too when the first picture is
 * far from the pane's shape and the direction may be chosen. Both runs share one cache
 * run, so the next edit finds the kept direction's compounds cached.
 */
export async function layoutForPane(
  elk: ElkLike,
  def: MachineDefinition,
  measure: TextMeasure,
  hints: LayoutHints | null,
  cache: LayoutCache | null,
  aspect: number | null,
): Promise<Layout> {
  // Choosing again starts afresh, left to right (a chart turned before, now shown as an
  // overview, may read best the other way); otherwise the previous flow is kept.
  const choosing = aspect !== null && aspect > 0 && mayChooseDirection(def, hints);
  const first = choosing ? 'RIGHT' : (hints?.direction ?? 'RIGHT');
  const layout = await layoutDefinition(elk, def, measure, hints, cache, first);
  if (aspect === null || !(aspect > 0)) {
    if (hints?.direction) return layout;
    // Nothing chosen yet: the layout once the pane is measured may still choose.
    const { direction: _unchosen, ...rest } = layout;
    return rest;
  }
  if (!choosing || !mismatched(layout, aspect)) return layout;
  const turned = await layoutDefinition(elk, def, measure, hints, cache, other(first), true);
  return fitScale(turned, aspect) > fitScale(layout, aspect) ? turned : layout;
}

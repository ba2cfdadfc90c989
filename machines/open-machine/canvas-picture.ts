import type { Layout } from '../../src/lib/layout/types.ts';
import type { CanvasFact } from './canvas.setup.ts';

/**
 * Which picture the canvas shows: the live chart's newest layout, or a version's or diff's
 * (from the versions) in its place, and what was last told to the canvas. A switch between
 * the live chart and a version or diff is a fresh picture, fitted whatever the view was.
 * Used by open-machine.machine.ts.
 */
export interface CanvasPictures {
  live: Layout | null;
  /** A version's or diff's layout shown in place of the live chart (null: none). */
  review: Layout | null;
  /** The layout last told to the canvas, and whether it was a version's or diff's. */
  told: Layout | null;
  toldReview: boolean;
}

export const NO_PICTURES: CanvasPictures = { live: null, review: null, told: null, toldReview: false };

/**
 * The pictures with `change` in them, and what the canvas must be told (null: nothing new),
 * with Fit's overview the picture was made for (`liveOverview` for the live chart's).
 */
export function nextPicture(
  pictures: CanvasPictures,
  change: Partial<Pick<CanvasPictures, 'live' | 'review'>>,
  liveOverview: () => string,
): { pictures: CanvasPictures; fact: CanvasFact | null } {
  const next = { ...pictures, ...change };
  const layout = next.review ?? next.live;
  if (!layout || layout === next.told) return { pictures: next, fact: null };
  const review = next.review !== null;
  const fresh = next.told !== null && review !== next.toldReview;
  const overview = review ? 'review' : liveOverview();
  return {
    pictures: { ...next, told: layout, toldReview: review },
    fact: { type: 'canvas.laidOut', layout, overview, fresh },
  };
}

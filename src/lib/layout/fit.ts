import type { Box } from './types.ts';

/** A diagram's pan and zoom: screen = world × zoom + (x, y). */
export interface FitViewport {
  x: number;
  y: number;
  zoom: number;
}

export const FIT_MIN_ZOOM = 0.1;
export const FIT_MAX_ZOOM = 4;

/**
 * The viewport that shows `bounds` whole and centred in a `width` × `height` stage, with
 * a margin, never zoomed in past 1.25 nor out of [FIT_MIN_ZOOM, FIT_MAX_ZOOM].
 */
export function fitViewport(bounds: Box, width: number, height: number, margin = 32): FitViewport {
  const zoom = Math.min(
    FIT_MAX_ZOOM,
    Math.max(
      FIT_MIN_ZOOM,
      Math.min(
        1.25,
        (width - 2 * margin) / Math.max(1, bounds.width),
        (height - 2 * margin) / Math.max(1, bounds.height),
      ),
    ),
  );
  return {
    zoom,
    x: (width - bounds.width * zoom) / 2 - bounds.x * zoom,
    y: (height - bounds.height * zoom) / 2 - bounds.y * zoom,
  };
}

/**
 * Whether a chart's extent changed a lot: either side grew or shrank by more than
 * `factor`. A view no one moved since its fit is fitted again then (a peer's big paste
 * arriving, the chart turned to suit the pane); an ordinary edit leaves the view alone.
 */
export function extentChanged(
  before: { width: number; height: number },
  after: { width: number; height: number },
  factor = 1.5,
): boolean {
  const ratio = (a: number, b: number): number => Math.max(a, b) / Math.max(1, Math.min(a, b));
  return ratio(before.width, after.width) > factor || ratio(before.height, after.height) > factor;
}

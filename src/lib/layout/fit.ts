import type { Box } from './types.ts';

/** A diagram's pan and zoom: screen = world × zoom + (x, y). */
export interface FitViewport {
  x: number;
  y: number;
  zoom: number;
}

export const FIT_MIN_ZOOM = 0.1;
export const FIT_MAX_ZOOM = 4;

/** Panes narrower than this are a phone's: Fit keeps names readable there rather than the whole chart in view. */
export const NARROW_PANE_PX = 600;
/** The zoom at which a state's 13 px name is drawn 8 px tall: the smallest Fit shows on a phone. */
export const READABLE_FIT_ZOOM = 8 / 13;

/** The smallest zoom Fit may choose in a pane this wide: readable names on a phone, anything elsewhere. */
export const fitZoomFloor = (width: number): number => (width < NARROW_PANE_PX ? READABLE_FIT_ZOOM : FIT_MIN_ZOOM);

/**
 * The viewport that shows `bounds` whole and centred in a `width` × `height` stage, with
 * a margin, never zoomed in past 1.25 nor out of [`minZoom`, FIT_MAX_ZOOM]. When `minZoom`
 * keeps the chart larger than the stage along an axis, that axis centres `focus` (the
 * initial state) as far as the chart's edges allow, or shows the chart's start without one.
 */
export function fitViewport(
  bounds: Box,
  width: number,
  height: number,
  margin = 32,
  minZoom = FIT_MIN_ZOOM,
  focus: Box | null = null,
): FitViewport {
  const zoom = Math.min(
    FIT_MAX_ZOOM,
    Math.max(
      minZoom,
      Math.min(
        1.25,
        (width - 2 * margin) / Math.max(1, bounds.width),
        (height - 2 * margin) / Math.max(1, bounds.height),
      ),
    ),
  );
  const place = (size: number, start: number, extent: number, at: number | null): number => {
    if (extent * zoom <= size - 2 * margin) return (size - extent * zoom) / 2 - start * zoom;
    const first = margin - start * zoom;
    if (at === null) return first;
    const last = size - margin - (start + extent) * zoom;
    return Math.min(first, Math.max(last, size / 2 - at * zoom));
  };
  return {
    zoom,
    x: place(width, bounds.x, bounds.width, focus ? focus.x + focus.width / 2 : null),
    y: place(height, bounds.y, bounds.height, focus ? focus.y + focus.height / 2 : null),
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

/**
 * What Fit is asked to frame to bring `box` into view in a `pane` with room around it
 * (a third of the pane each side, at least 160 × 120 px): the bounds and the pane's size.
 */
export function framing(
  box: Box,
  pane: { width: number; height: number },
): { bounds: Box; width: number; height: number } {
  const padX = Math.max(160, pane.width / 3);
  const padY = Math.max(120, pane.height / 3);
  const bounds = { x: box.x - padX, y: box.y - padY, width: box.width + 2 * padX, height: box.height + 2 * padY };
  return { bounds, width: pane.width, height: pane.height };
}

import { estimateText } from '../../lib/layout/labels.ts';
import type { TextMeasure } from '../../lib/ports/layout.ts';

/** Fonts the SVG uses (canvas.css); measuring with the same font keeps boxes snug. */
const FONTS = {
  state: '600 13px Inter, ui-sans-serif, system-ui, sans-serif',
  edge: '12px Inter, ui-sans-serif, system-ui, sans-serif',
} as const;

/**
 * Text widths from a canvas (OffscreenCanvas works in the layout worker too), falling
 * back to the character estimate where there is none. Cached: layouts re-measure the
 * same labels on every edit.
 */
export function canvasMeasure(): TextMeasure {
  const canvas = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(1, 1) : null;
  const ctx = canvas?.getContext('2d') ?? null;
  if (!ctx) return estimateText;
  const cache = new Map<string, number>();
  return (text, kind) => {
    const key = `${kind}\u0000${text}`;
    let w = cache.get(key);
    if (w === undefined) {
      ctx.font = FONTS[kind];
      w = Math.ceil(ctx.measureText(text).width);
      cache.set(key, w);
    }
    return w;
  };
}

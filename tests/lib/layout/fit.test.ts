import { describe, expect, it } from 'vitest';
import { fitViewport, fitZoomFloor, READABLE_FIT_ZOOM } from '../../../src/lib/layout/fit.ts';

/** Fit: the whole chart, centred; on a phone, never smaller than readable names. */

describe('fitViewport', () => {
  it('centres a chart that fits, at the zoom that shows it whole', () => {
    // Never zoomed in past 1.25, however small the chart.
    expect(fitViewport({ x: 0, y: 0, width: 400, height: 200 }, 1000, 800).zoom).toBe(1.25);
    const big = fitViewport({ x: 0, y: 0, width: 2000, height: 500 }, 1000, 800);
    expect(big.zoom).toBeCloseTo(936 / 2000);
    expect(big.x + (2000 * big.zoom) / 2).toBeCloseTo(500);
    expect(big.y + (500 * big.zoom) / 2).toBeCloseTo(400);
  });

  it('keeps a floor on a phone, showing the chart from its start along the axis that does not fit', () => {
    const floor = fitZoomFloor(390);
    expect(floor).toBe(READABLE_FIT_ZOOM);
    expect(fitZoomFloor(1280)).toBeLessThan(floor);
    // 2,000 wide and 300 tall in a 390 x 730 pane: whole, it would be 0.16.
    const v = fitViewport({ x: -20, y: 0, width: 2000, height: 300 }, 390, 730, 32, floor);
    expect(v.zoom).toBe(READABLE_FIT_ZOOM);
    // Across, the left edge sits at the margin; down, the chart is centred (it fits).
    expect(v.x + -20 * v.zoom).toBeCloseTo(32);
    expect(v.y + (300 * v.zoom) / 2).toBeCloseTo(365);
  });
});

describe('fitViewport with a focus', () => {
  it('on a phone, centres the initial state as far as the chart edges allow', () => {
    const bounds = { x: 0, y: 0, width: 2000, height: 300 };
    const mid = fitViewport(bounds, 390, 730, 32, READABLE_FIT_ZOOM, { x: 1000, y: 100, width: 100, height: 40 });
    expect(mid.x + 1050 * mid.zoom).toBeCloseTo(195);
    // Near the start: the chart's left edge stays at the margin rather than leaving a gap.
    const near = fitViewport(bounds, 390, 730, 32, READABLE_FIT_ZOOM, { x: 10, y: 100, width: 100, height: 40 });
    expect(near.x).toBeCloseTo(32);
    // Near the end: the right edge stays at the margin.
    const far = fitViewport(bounds, 390, 730, 32, READABLE_FIT_ZOOM, { x: 1950, y: 100, width: 50, height: 40 });
    expect(far.x + 2000 * far.zoom).toBeCloseTo(390 - 32);
  });
});

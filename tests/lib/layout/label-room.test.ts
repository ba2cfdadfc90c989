import { describe, expect, it } from 'vitest';
import { labelGrowthRoom } from '../../../src/lib/layout/label-room.ts';

const box = (x: number, y: number, width = 100, height = 20) => ({ x, y, width, height });

describe('how far transition labels may grow before they cover each other', () => {
  it('is the cap when labels are far apart', () => {
    expect(labelGrowthRoom([box(0, 0), box(500, 500)], 1.35)).toBe(1.35);
  });

  it('stops where two stacked labels would touch', () => {
    // Centres 24 px apart vertically, 20 px tall each: they touch at 1.2 times.
    expect(labelGrowthRoom([box(0, 0), box(0, 24)], 1.35)).toBeCloseTo(1.2);
  });

  it('leaves out pairs that already overlap, and gives no growth past the limit', () => {
    expect(labelGrowthRoom([box(0, 0), box(10, 5), box(0, 400)], 1.35)).toBe(1.35);
    expect(labelGrowthRoom([box(0, 0), box(500, 0)], 1.35, 1)).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { importXState } from '../../../src/lib/model/import.ts';
import { sketchOf, thumbnail } from '../../../src/lib/layout/thumbnail.ts';

const door = importXState({
  id: 'door',
  initial: 'shut',
  states: {
    shut: { on: { OPEN: 'open', LOCK: 'shut.locked' }, initial: 'closed', states: { closed: {}, locked: {} } },
    open: { on: { SHUT: 'shut' } },
    gone: { type: 'final' },
  },
});

describe('chart thumbnails', () => {
  it('sketches the top-level states, what they hold, the initial one and the links between them', () => {
    const sketch = sketchOf(door);
    expect(sketch).toEqual({
      states: [
        { key: 'shut', nested: 2 },
        { key: 'open', nested: 0 },
        { key: 'gone', nested: 0 },
      ],
      initial: 0,
      // shut -> shut.locked stays inside `shut`: no line.
      edges: [
        [0, 1],
        [1, 0],
      ],
    });
  });

  it('answers null for something that is not a definition', () => {
    expect(sketchOf(null)).toBeNull();
    expect(sketchOf({ states: {} })).toBeNull();
  });

  it('draws every box inside the picture, apart from each other, and lines that end on boxes', () => {
    const sketch = sketchOf(door);
    if (!sketch) throw new Error('no sketch');
    const picture = thumbnail(sketch, 240, 120);
    expect(picture.boxes).toHaveLength(3);
    for (const b of picture.boxes) {
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.y).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(240);
      expect(b.y + b.height).toBeLessThanOrEqual(120);
    }
    const [a, b, c] = picture.boxes;
    const apart = (p: typeof a, q: typeof a) =>
      p!.x + p!.width <= q!.x || q!.x + q!.width <= p!.x || p!.y + p!.height <= q!.y || q!.y + q!.height <= p!.y;
    expect(apart(a, b) && apart(b, c) && apart(a, c)).toBe(true);
    expect(picture.lines).toHaveLength(2);
    expect(picture.boxes[0]?.initial).toBe(true);
  });

  it('draws an empty chart as no boxes', () => {
    expect(thumbnail({ states: [], initial: null, edges: [] }).boxes).toEqual([]);
  });
});

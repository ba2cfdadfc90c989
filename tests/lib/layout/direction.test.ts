import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { describe, expect, it } from 'vitest';
import { loadExample } from '../../../src/features/canvas/examples.ts';
import {
  estimateText,
  fitScale,
  hintsFrom,
  layoutDefinition,
  LayoutCache,
  layoutForPane,
  mayChooseDirection,
  mismatched,
  type ElkLike,
} from '../../../src/lib/layout/index.ts';
import { extentChanged } from '../../../src/lib/layout/fit.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { applyOps } from '../../../src/lib/model/index.ts';

/** Real ELK, counting the graphs it lays out and the directions asked for. */
function countingElk(): ElkLike & { directions: string[] } {
  const elk = new ELK();
  const directions: string[] = [];
  return {
    directions,
    layout: (graph: ElkNode) => {
      directions.push(String(graph.layoutOptions?.['elk.direction']));
      return elk.layout(graph);
    },
  };
}

/** The diagram pane at 1280×800 in the "Both" view (measured in tests/e2e/fit-examples.test.ts). */
const PANE = 556 / 493;

const session = () => {
  const def = loadExample('session');
  if (!def) throw new Error('no session example');
  return def;
};

describe('layout direction for the pane', () => {
  it('turns a chart far wider than the pane downwards, and keeps the better fit', async () => {
    const def = session();
    const elk = countingElk();
    const right = await layoutDefinition(elk, def, estimateText, null, null, 'RIGHT');
    expect(mismatched(right, PANE)).toBe(true);
    const chosen = await layoutForPane(elk, def, estimateText, null, new LayoutCache(), PANE);
    expect(chosen.direction).toBe('DOWN');
    // (Wrapped labels made the left-to-right picture less wide: the gain was 1.5x before them.)
    expect(fitScale(chosen, PANE)).toBeGreaterThan(1.4 * fitScale(right, PANE));
    // Each node keeps its place in the tree: the same states, all inside the root's box.
    expect(Object.keys(chosen.nodes).sort()).toEqual(Object.keys(def.states).sort());
    for (const n of Object.values(chosen.nodes)) {
      expect(n.x + n.width).toBeLessThanOrEqual(chosen.width + 0.5);
      expect(n.y + n.height).toBeLessThanOrEqual(chosen.height + 0.5);
    }
  });

  it('keeps left to right when that already fits, and when it is the better of the two', async () => {
    const def = loadExample('layout');
    if (!def) throw new Error('no layout example');
    const elk = countingElk();
    const chosen = await layoutForPane(elk, def, estimateText, null, null, PANE);
    expect(chosen.direction).toBe('RIGHT');
    // A pane of the left-to-right picture's own shape suits it: nothing else is tried.
    elk.directions.length = 0;
    await layoutForPane(elk, def, estimateText, null, null, chosen.width / chosen.height);
    expect(elk.directions).toEqual(['RIGHT']);
  });

  it('chooses nothing without a pane, so the first measured pane may still turn the chart', async () => {
    const elk = countingElk();
    const unmeasured = await layoutForPane(elk, session(), estimateText, null, null, null);
    expect(unmeasured.direction).toBeUndefined();
    expect(hintsFrom(unmeasured).direction).toBeUndefined();
    expect(elk.directions).toEqual(['RIGHT']);
  });

  it('sticks to the chosen direction under ordinary edits, and chooses again after a big change', async () => {
    const def = session();
    const elk = countingElk();
    const cache = new LayoutCache();
    const first = await layoutForPane(elk, def, estimateText, null, cache, PANE);
    expect(first.direction).toBe('DOWN');
    const edited = applyOps(def, [
      { type: 'state.add', id: 's_extra', parent: def.root, key: 'extra', stateType: 'atomic', index: null },
    ]);
    expect(mayChooseDirection(edited, hintsFrom(first))).toBe(false);
    elk.directions.length = 0;
    // Even in a pane that would suit left to right better, an edit does not turn the picture.
    const next = await layoutForPane(elk, edited, estimateText, hintsFrom(first), cache, 8);
    expect(next.direction).toBe('DOWN');
    expect(elk.directions).toEqual(['DOWN']);
    // A paste of a much bigger chart over it chooses again.
    const big = generateChart(60);
    expect(mayChooseDirection(big, hintsFrom(first))).toBe(true);
    expect(mayChooseDirection(def, { sizes: {}, positions: {} })).toBe(true);
  });
});

describe('extentChanged', () => {
  it('is true only when a side grows or shrinks by more than the factor', () => {
    const before = { width: 1000, height: 400 };
    expect(extentChanged(before, { width: 1100, height: 420 })).toBe(false);
    expect(extentChanged(before, { width: 1500, height: 400 })).toBe(false);
    expect(extentChanged(before, { width: 1501, height: 400 })).toBe(true);
    expect(extentChanged(before, { width: 1000, height: 260 })).toBe(true);
    expect(extentChanged(before, { width: 5000, height: 3000 })).toBe(true);
    expect(extentChanged({ width: 0, height: 0 }, { width: 1, height: 1 })).toBe(false);
  });
});

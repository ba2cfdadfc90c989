import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import {
  autoCollapsed,
  collapseView,
  estimateText,
  hiddenBy,
  layoutDefinition,
  OPEN_BUDGET,
} from '../../../src/lib/layout/index.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { importXState } from '../../../src/lib/model/index.ts';

/**
 * Big charts were laid out and drawn whole (a 1,000-state chart,
 * 153,000 px wide, unreadable at Fit). Deeper compounds now start collapsed, so what is
 * laid out stays under a budget; transitions to hidden states end at the collapsed box.
 */
const elk = new ELK();

const NEST = importXState(
  {
    id: 'nest',
    initial: 'a',
    states: {
      a: { initial: 'a1', states: { a1: { on: { IN: 'a2', OUT: '#nest.b.b1' } }, a2: {} } },
      b: { initial: 'b1', states: { b1: { on: { BACK: '#nest.a.a2' } }, b2: {} }, on: { RESET: 'a' } },
    },
  },
  { name: 'nest' },
);
const id = (key: string) => Object.values(NEST.states).find((s) => s.key === key)?.id ?? '';

describe('collapsed compound states', () => {
  it('small charts open whole; big ones keep what shows under the budget', () => {
    expect(autoCollapsed(NEST).size).toBe(0);
    for (const size of [100, 1000]) {
      const def = generateChart(size);
      const { view } = collapseView(def, autoCollapsed(def));
      const shown = Object.keys(view.states).length;
      expect(shown).toBeLessThanOrEqual(OPEN_BUDGET);
      expect(shown).toBeGreaterThan(1);
    }
  });

  it('re-points transitions to the collapsed box, drops those wholly inside it, and counts what it hides', () => {
    const { view, hidden } = collapseView(NEST, new Set([id('a')]));
    expect(hidden).toEqual({ [id('a')]: 2 });
    expect(view.states[id('a')]?.children).toEqual([]);
    expect(view.states[id('a1')]).toBeUndefined();
    const byEvent = (e: string) => Object.values(view.transitions).find((t) => t.event === e);
    expect(byEvent('IN')).toBeUndefined();
    expect(byEvent('OUT')).toMatchObject({ source: id('a'), targets: [id('b1')] });
    expect(byEvent('BACK')).toMatchObject({ source: id('b1'), targets: [id('a')] });
    expect(byEvent('RESET')).toMatchObject({ source: id('b'), targets: [id('a')] });
    // An arrow between states that show is the definition's own object; a re-pointed one is a copy.
    const original = (e: string) => Object.values(NEST.transitions).find((t) => t.event === e);
    expect(byEvent('RESET')).toBe(original('RESET'));
    expect(byEvent('OUT')).not.toBe(original('OUT'));
    expect(hiddenBy(NEST, new Set([id('a')]), id('a2'))).toEqual([id('a')]);
    expect(hiddenBy(NEST, new Set([id('a')]), id('b1'))).toEqual([]);
  });

  it('lays out a collapsed view: the box holds its caption, every shown state and transition is placed', async () => {
    const { view } = collapseView(NEST, new Set([id('a')]));
    const layout = await layoutDefinition(elk, view, estimateText);
    expect(Object.keys(layout.nodes).sort()).toEqual(Object.keys(view.states).sort());
    expect(Object.keys(layout.edges).sort()).toEqual(Object.keys(view.transitions).sort());
    const box = layout.nodes[id('a')];
    expect(box?.height).toBeGreaterThan(36);
    expect(box?.width).toBeGreaterThanOrEqual(estimateText('9,999 states inside', 'edge'));
  });

  it('a 1,000-state chart lays out collapsed with its outer levels readable at Fit', async () => {
    const def = generateChart(1000);
    const layout = await layoutDefinition(elk, collapseView(def, autoCollapsed(def)).view, estimateText);
    // Fit in a 1280 px wide pane stays above 5% (whole, it was 153,000 px wide: under 1%).
    expect(1200 / layout.width).toBeGreaterThan(0.05);
  }, 60_000);
});

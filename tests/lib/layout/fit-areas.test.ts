import { describe, expect, it } from 'vitest';
import { drawnArea, levelAreas } from '../../../src/lib/layout/fit-areas.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { estimateText } from '../../../src/lib/layout/labels.ts';
import type { TextMeasure } from '../../../src/lib/ports/layout.ts';
import { applyOp } from '../../../src/lib/model/apply.ts';
import type { Op } from '../../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';

/**
 * Fit's overview weighs the chart's drawn area at every level; after an edit that keeps
 * the tree's shape only what changed is weighed again. Whatever path got there, the areas
 * must be the ones worked out afresh (exactly: every view must decide alike) and match
 * the drawn area of the chart with that level's compounds closed.
 */
const afresh = (def: MachineDefinition) => {
  // Another measure (the same text widths) has no plan kept: worked out from scratch.
  const measure: TextMeasure = (text, kind) => estimateText(text, kind);
  return levelAreas(def, measure);
};

describe("Fit's areas by level", () => {
  it('kept up to date over edits, equal to the areas worked out afresh and to the drawn area', () => {
    let def = generateChart(300);
    const states = Object.values(def.states).filter((s) => s.parent !== null);
    const transitions = Object.values(def.transitions);
    const ops: Op[] = [
      ...states
        .slice(0, 12)
        .map((s, i): Op => ({ type: 'state.rename', id: s.id, key: `${s.key}_renamed_longer_${i}` })),
      { type: 'state.update', id: states[5]!.id, changes: { description: 'a description that is drawn' } },
      ...transitions
        .slice(0, 6)
        .map((t, i): Op => ({ type: 'transition.update', id: t.id, changes: { event: `A_MUCH_LONGER_EVENT_${i}` } })),
      { type: 'state.add', id: 'fresh', parent: def.root, key: 'fresh', stateType: 'atomic', index: null },
      { type: 'state.rename', id: 'fresh', key: 'fresh_again' },
      { type: 'state.delete', id: states[40]!.id },
      { type: 'machine.update', changes: { name: 'renamed machine' } },
    ];
    levelAreas(def, estimateText);
    for (const op of ops) {
      def = applyOp(def, op);
      const kept = levelAreas(def, estimateText);
      const fresh = afresh(def);
      expect(kept.levels).toEqual(fresh.levels);
      expect(kept.compounds).toEqual(fresh.compounds);
      for (const { depth, area } of kept.levels) {
        const closed = new Set(kept.compounds.filter((c) => c.depth >= depth).map((c) => c.id));
        const reference = drawnArea(def, closed, estimateText);
        // Each part is rounded to whole px²: the sums differ by less than one per part.
        expect(Math.abs(area - reference)).toBeLessThan(
          Object.keys(def.states).length + Object.keys(def.transitions).length,
        );
        expect(area).toBeGreaterThan(0);
      }
    }
  });
});

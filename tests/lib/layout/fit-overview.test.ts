import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_NAMES, loadExample } from '../../../src/features/canvas/examples.ts';
import { collapsedFor, collapseView, fitCollapsed } from '../../../src/lib/layout/collapse.ts';
import { layoutForPane } from '../../../src/lib/layout/direction.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { estimateText } from '../../../src/lib/layout/labels.ts';
import { LABELS_GROWN, layoutLabelRoom, readability } from '../../../src/lib/layout/readability.ts';
import type { Layout } from '../../../src/lib/layout/types.ts';
import { applyOp } from '../../../src/lib/model/apply.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';

/**
 * Fit's overview: a chart too big to show every label at 10 px in its pane opens with
 * compounds collapsed (collapse.ts `fitCollapsed`), and the layout leaves stacked labels
 * room to grow to the floor. Figures from readability.ts, the same the fit bench prints.
 */
const elk = new ELK();
const PANE = { width: 1239, height: 756 };

const example = (name: string): MachineDefinition => {
  const def = loadExample(name);
  if (!def) throw new Error(`no example ${name}`);
  return def;
};
const layOut = (def: MachineDefinition, pane = PANE): Promise<Layout> =>
  layoutForPane(elk, def, estimateText, null, null, pane.width / pane.height);
/** The root's compound children: the most an overview collapses. */
const topCompounds = (def: MachineDefinition): string[] =>
  (def.states[def.root]?.children ?? []).filter((id) => (def.states[id]?.children.length ?? 0) > 0).sort();

describe("Fit's overview", () => {
  it('collapses nothing in a chart that reads whole, and decides the same way every time', async () => {
    const def = example('invites');
    expect(fitCollapsed(def, PANE).size).toBe(0);
    const r = readability(await layOut(def), PANE);
    expect(r.labelsDrawn).toBe(r.labels);
    // The same chart loaded twice (new ids each time) collapses the same states.
    const keys = (d: MachineDefinition) => [...fitCollapsed(d, PANE)].map((id) => d.states[id]?.key).sort();
    expect(keys(example('room'))).toEqual(keys(example('room')));
    expect(keys(example('room')).length).toBeGreaterThan(0);
  });

  it('shows each bundled example readable at Fit, or as its most collapsed overview', async () => {
    for (const name of EXAMPLE_NAMES) {
      const def = example(name);
      const set = fitCollapsed(def, PANE);
      const { view, hidden } = collapseView(def, set);
      const r = readability(await layOut(view), PANE, { def: view, measure: estimateText });
      if (r.labelsDrawn < r.labels)
        expect([...set].filter((id) => def.states[id]?.parent === def.root).sort(), name).toEqual(topCompounds(def));
      // A collapsed box counts what it hides; nothing overlaps, no text leaves its box.
      for (const id of set) if (id in hidden) expect(hidden[id], name).toBeGreaterThan(0);
      expect(r.overlapping, name).toBe(0);
      expect(r.overflowing, name).toBe(0);
    }
  });

  it('collapses a chart whose whole picture would put labels under the floor', async () => {
    const def = example('room');
    const whole = readability(await layOut(def), PANE);
    expect(whole.labelsDrawn).toBeLessThan(whole.labels);
    const set = fitCollapsed(def, PANE);
    expect(set.size).toBeGreaterThan(0);
    const shown = readability(await layOut(collapseView(def, set).view), PANE);
    expect(shown.labelsDrawn).toBe(shown.labels);
    expect(shown.smallestText).toBeGreaterThanOrEqual(9);
    // A larger pane never collapses more.
    expect(fitCollapsed(def, { width: 2560, height: 1440 }).size).toBeLessThanOrEqual(set.size);
  });

  it('decides an edited chart as it would the same chart read afresh (what it keeps per state is never stale)', () => {
    let def = generateChart(1000);
    // A pane the whole chart reads in, until its names grow.
    const wide = { width: 10_000, height: 7_500 };
    const fresh = (d: MachineDefinition) => [...fitCollapsed(structuredClone(d), wide)].sort();
    expect(fitCollapsed(def, wide).size).toBe(0);
    // Leaf names grown one by one until the overview closes compounds: each step agrees with a fresh read.
    const leaves = Object.values(def.states)
      .filter((s) => s.children.length === 0)
      .slice(0, 60);
    let changed = false;
    for (const [i, leaf] of leaves.entries()) {
      def = applyOp(def, { type: 'state.rename', id: leaf.id, key: `${'w'.repeat(300)}${i}` });
      const now = [...fitCollapsed(def, wide)].sort();
      expect(now).toEqual(fresh(def));
      if (now.length > 0) changed = true;
    }
    expect(changed).toBe(true);
  });

  it('with the pane known, collapsedFor adds the overview; what a person opens stays open', () => {
    const def = example('room');
    const overview = fitCollapsed(def, PANE);
    const [first] = [...overview];
    if (!first) throw new Error('room shows no overview');
    expect(collapsedFor(def, { opened: [], closed: [] }).size).toBe(0);
    expect([...collapsedFor(def, { opened: [], closed: [], pane: PANE })].sort()).toEqual([...overview].sort());
    expect(collapsedFor(def, { opened: [first], closed: [], pane: PANE }).has(first)).toBe(false);
  });

  it('leaves stacked labels room to grow to the floor: connection and canvas read whole at Fit', async () => {
    for (const name of ['connection', 'canvas']) {
      const def = example(name);
      expect(fitCollapsed(def, PANE).size, name).toBe(0);
      const layout = await layOut(def);
      const r = readability(layout, PANE);
      expect(r.labelsDrawn, name).toBe(r.labels);
      // Under 10 px at their own size, they grow into the room the layout left them.
      if (r.zoom < LABELS_GROWN) expect(layoutLabelRoom(layout), name).toBeGreaterThanOrEqual(LABELS_GROWN / r.zoom);
    }
  });
});

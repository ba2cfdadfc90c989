import os from 'node:os';
import ELK from 'elkjs/lib/elk.bundled.js';
import { EXAMPLE_NAMES, loadExample } from '../../src/features/canvas/examples.ts';
import { collapseView, fitCollapsed } from '../../src/lib/layout/collapse.ts';
import { layoutForPane } from '../../src/lib/layout/direction.ts';
import { estimateText } from '../../src/lib/layout/labels.ts';
import { readability } from '../../src/lib/layout/readability.ts';
import type { BenchContext } from '../lib.ts';

/**
 * Every bundled example at Fit, the canvas alone (side panel collapsed), in the diagram
 * panes of a 1280×800 and a 1600×1000 window (their sizes as Chromium measured them): laid out in Node with the same functions
 * the worker runs (text widths estimated, not measured), shown as Fit's overview where the
 * chart is too big (collapse.ts `fitCollapsed`). Printed, never pass/fail; the e2e
 * tests/e2e/fit-examples.test.ts reads the same from the drawn SVG in Chromium.
 */
const PANES = [
  { window: '1280x800', width: 1239, height: 756 },
  { window: '1600x1000', width: 1559, height: 956 },
];

export async function run(ctx: BenchContext): Promise<void> {
  const elk = new ELK();
  for (const pane of PANES) {
    ctx.section(
      `fit: bundled examples at Fit, ${pane.window} canvas alone (pane ${pane.width}x${pane.height}; load ${os.loadavg()[0]?.toFixed(1)})`,
    );
    for (const name of EXAMPLE_NAMES) {
      const def = loadExample(name);
      if (!def) throw new Error(`no example ${name}`);
      const collapsed = fitCollapsed(def, pane);
      const { view } = collapseView(def, collapsed);
      const layout = await layoutForPane(elk, view, estimateText, null, null, pane.width / pane.height);
      const r = readability(layout, pane, { def: view, measure: estimateText });
      ctx.report(
        `${name}: ${Object.keys(view.states).length}/${Object.keys(def.states).length} states shown, ${collapsed.size} collapsed`,
        `zoom ${r.zoom.toFixed(2)}`,
      );
      ctx.report(`  labels drawn`, `${r.labelsDrawn}/${r.labels}`);
      ctx.report(`  smallest text on screen`, `${r.smallestText.toFixed(1)} px`);
      ctx.report(
        `  text out of box / overlapping boxes / edges through a box`,
        `${r.overflowing} / ${r.overlapping} / ${r.crossing}`,
      );
    }
  }
}

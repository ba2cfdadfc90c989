import { diffToOps } from '../../src/lib/canvas-ops/diff.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { applyRun } from '../../src/lib/model/apply.ts';
import { applyOps, exportXState, importXState, type Op } from '../../src/lib/model/index.ts';
import type { BenchContext } from '../lib.ts';
import { compare } from './bigchart-undo.ts';

/**
 * Deleting 100 states of a pasted 1,000-state chart in one run: each delete asks
 * which transitions and history targets touch the doomed states. The former path scanned
 * every record per delete (kept as `applyRun(..., false)`); the run's draft now answers
 * from an index built once. Both run here on the same ops, taking turns. Pure CPU in this
 * process; no backend.
 */
export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('bigchart-delete: deleting 100 states of a 1,000-state chart in one run (one process, no backend)');
  const start = importXState({ id: 'start', initial: 'idle', states: { idle: {} } }, { name: 'start' });
  const chart = applyOps(start, diffToOps(start, importXState(exportXState(generateChart(1000)), { name: 'pasted' })));
  // 100 leaves spread evenly over the chart (each delete removes exactly its state).
  const leaves = Object.values(chart.states)
    .filter((s) => s.id !== chart.root && s.children.length === 0)
    .map((s) => s.id)
    .sort();
  const step = Math.floor(leaves.length / 100);
  const cut: Op[] = leaves
    .filter((_, i) => i % step === 0)
    .slice(0, 100)
    .map((id) => ({ type: 'state.delete', id }));
  const left = applyRun(chart, cut, undefined, false);
  if (cut.length < 100) throw new Error(`delete 100: found only ${cut.length} states to delete`);
  if (JSON.stringify(applyRun(chart, cut)) !== JSON.stringify(applyRun(chart, cut, undefined, false)))
    throw new Error('delete 100: the indexed run differs from the scanning one');
  const gone = Object.keys(chart.states).length - Object.keys(left.states).length;
  await compare(
    ctx,
    `delete 100 of ${Object.keys(chart.states).length} states (leaves; ${gone} gone)`,
    () => applyRun(chart, cut, undefined, false),
    () => applyRun(chart, cut),
    ['a scan per delete (former)', 'indexed'],
  );
}

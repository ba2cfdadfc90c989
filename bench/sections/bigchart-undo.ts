import { PerformanceObserver } from 'node:perf_hooks';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { invertAll } from '../../src/lib/collab/rebase.ts';
import type { OpModel } from '../../src/lib/collab/types.ts';
import { diffToOps } from '../../src/lib/canvas-ops/diff.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { applyOp, applyOps, exportXState, importXState, invert } from '../../src/lib/model/index.ts';
import type { MachineDefinition, Op } from '../../src/lib/model/index.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

/**
 * The undo entry of a big paste (issue 10, defect 5): the pasting tab computes the inverse
 * of every op of the edit when it records it. Op by op (each op's inverse, then an apply
 * that copied every state) this grew with the square of the chart; the model's batch
 * inverse (`invertRun`) does it in one draft. Both run here on the same batches, taking
 * turns: the baseline is `invertAll` over a model without the batch inverse, which is the
 * former code path itself. The batches are what Apply in the code view sends: `diffToOps`
 * from the one-state start to a pasted generated chart (as bench/sections/bigchart.ts
 * does in the browser), and back down again (deletes, whose inverses read the chart).
 * Pure CPU in this process; no backend.
 */

const RUNS = 15;
const WARMUP = 2;

const oneByOne: OpModel<MachineDefinition, Op> = { apply: applyOp, invert };

/** Wall time of `run` and the GC pause time Node reported while it ran. */
async function timed(run: () => unknown): Promise<{ ms: number; gc: number }> {
  let gc = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const start = process.hrtime.bigint();
  run();
  const wall = since(start);
  // Node queues GC entries and hands them to observers on a later turn of the loop.
  await new Promise((resolve) => setTimeout(resolve, 5));
  observer.disconnect();
  return { ms: wall, gc };
}

async function compare(ctx: BenchContext, label: string, before: MachineDefinition, ops: Op[]): Promise<void> {
  const same =
    JSON.stringify(invertAll(chartroomModel, before, ops)) === JSON.stringify(invertAll(oneByOne, before, ops));
  if (!same) throw new Error(`${label}: the batch inverse differs from the op-by-op one`);
  const old: number[] = [];
  const now: number[] = [];
  const oldGc: number[] = [];
  const nowGc: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const a = await timed(() => invertAll(oneByOne, before, ops));
    const b = await timed(() => invertAll(chartroomModel, before, ops));
    if (i < WARMUP) continue;
    old.push(a.ms);
    oldGc.push(a.gc);
    now.push(b.ms);
    nowGc.push(b.gc);
  }
  const o = summarize(old);
  const n = summarize(now);
  ctx.report(`${label}: ${ops.length} ops, op by op (former), p50 (n = ${o.n})`, ms(o.p50));
  ctx.report('  p95', ms(o.p95));
  ctx.report('  GC during it, p50', ms(summarize(oldGc).p50));
  ctx.report(`${label}: one draft (invertRun), p50 (n = ${n.n})`, ms(n.p50));
  ctx.report('  p95', ms(n.p95));
  ctx.report('  GC during it, p50', ms(summarize(nowGc).p50));
  ctx.report('  speed-up, p50 former / p50 one draft', `${(o.p50 / n.p50).toFixed(1)}x`);
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('bigchart-undo: the undo entry of a pasted 1,000-state chart (invertAll, one process, no backend)');
  const start = importXState({ id: 'start', initial: 'idle', states: { idle: {} } }, { name: 'start' });
  const pasted = importXState(exportXState(generateChart(1000)), { name: 'pasted' });
  const paste = diffToOps(start, pasted);
  await compare(ctx, 'paste 1,000 states', start, paste);
  const after = applyOps(start, paste);
  await compare(ctx, 'cut back to 1 state', after, diffToOps(after, start));
}

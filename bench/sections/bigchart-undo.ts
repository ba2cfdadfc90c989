import { PerformanceObserver } from 'node:perf_hooks';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { emptyHistory, recordEdit, undo } from '../../src/lib/collab/history.ts';
import { invertAll } from '../../src/lib/collab/rebase.ts';
import type { OpModel } from '../../src/lib/collab/types.ts';
import { diffToOps } from '../../src/lib/canvas-ops/diff.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { applyOp, applyOps, exportXState, importXState, invert } from '../../src/lib/model/index.ts';
import type { MachineDefinition, Op } from '../../src/lib/model/index.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

/**
 * The undo entry of a big paste: the pasting tab computes the inverse
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

/** Times the former code path against the new one, taking turns, and prints both and their ratio. */
export async function compare(
  ctx: BenchContext,
  label: string,
  former: () => unknown,
  oneDraft: () => unknown,
  names: [string, string] = ['op by op (former)', 'one draft'],
): Promise<void> {
  const old: number[] = [];
  const now: number[] = [];
  const oldGc: number[] = [];
  const nowGc: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const a = await timed(former);
    const b = await timed(oneDraft);
    if (i < WARMUP) continue;
    old.push(a.ms);
    oldGc.push(a.gc);
    now.push(b.ms);
    nowGc.push(b.gc);
  }
  const o = summarize(old);
  const n = summarize(now);
  ctx.report(label, '');
  ctx.report(`  ${names[0]}: p50 / p95 (n = ${o.n})`, `${ms(o.p50)} / ${ms(o.p95)}`);
  ctx.report('    GC during it, p50', ms(summarize(oldGc).p50));
  ctx.report(`  ${names[1]}: p50 / p95 (n = ${n.n})`, `${ms(n.p50)} / ${ms(n.p95)}`);
  ctx.report('    GC during it, p50', ms(summarize(nowGc).p50));
  ctx.report(`  ratio, p50 ${names[0]} / p50 ${names[1]}`, `${(o.p50 / n.p50).toFixed(1)}x`);
}

/** The undo entry of `ops` applied to `before`, both ways; they must be the same ops. */
async function compareInverse(ctx: BenchContext, label: string, before: MachineDefinition, ops: Op[]): Promise<void> {
  const same =
    JSON.stringify(invertAll(chartroomModel, before, ops)) === JSON.stringify(invertAll(oneByOne, before, ops));
  if (!same) throw new Error(`${label}: the batch inverse differs from the op-by-op one`);
  await compare(
    ctx,
    `invertAll, ${label} (${ops.length} ops)`,
    () => invertAll(oneByOne, before, ops),
    () => invertAll(chartroomModel, before, ops),
  );
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('bigchart-undo: the undo entry of a pasted 1,000-state chart (invertAll, one process, no backend)');
  const start = importXState({ id: 'start', initial: 'idle', states: { idle: {} } }, { name: 'start' });
  const pasted = importXState(exportXState(generateChart(1000)), { name: 'pasted' });
  const paste = diffToOps(start, pasted);
  await compareInverse(ctx, 'paste 1,000 states', start, paste);
  const after = applyOps(start, paste);
  await compareInverse(ctx, 'cut back to 1 state', after, diffToOps(after, start));

  // Pressing Undo after the paste: the entry lands (applyEach) and its inverse becomes the redo entry.
  const history = recordEdit(chartroomModel, emptyHistory<Op>(), start, paste);
  const entry = history.undo[0]?.length ?? 0;
  const same = JSON.stringify(undo(chartroomModel, history, after)) === JSON.stringify(undo(oneByOne, history, after));
  if (!same) throw new Error('undo: the one-draft step differs from the op-by-op one');
  await compare(
    ctx,
    `undo of that paste (history step, ${entry} ops)`,
    () => undo(oneByOne, history, after),
    () => undo(chartroomModel, history, after),
  );
}

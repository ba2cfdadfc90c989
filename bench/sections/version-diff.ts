import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { addChildOps, deleteOps, renameOps, setEventOps, versionDiff } from '../../src/lib/canvas-ops/index.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { applyOps, type MachineDefinition, type Op } from '../../src/lib/model/index.ts';
import { summarize, type BenchContext } from '../lib.ts';

/**
 * The visual diff of two versions (src/lib/canvas-ops/version-diff.ts: changes in words,
 * marks per element, the union drawn): a 1,000-state chart and the same chart 50 ops
 * later (renames, new states, deletions, events renamed), as Compare computes it.
 */

const ms = (v: number) => `${v.toFixed(1)} ms`;
const RUNS = 40;
const EDITS = 50;

/** `v1` moved on by `count` ops, a quarter each of renames, added states, deletions and renamed events. */
function editedBy(v1: MachineDefinition, count: number): { v2: MachineDefinition; ops: number } {
  let def = v1;
  let ops = 0;
  const leaves = () => Object.values(def.states).filter((s) => s.parent !== null && s.children.length === 0);
  for (let i = 0; ops < count; i++) {
    const pool = leaves();
    const s = pool[(i * 37) % pool.length]!;
    const transitions = Object.values(def.transitions);
    const t = transitions[(i * 53) % transitions.length]!;
    const batch: Op[] =
      i % 4 === 0
        ? renameOps(def, s.id, `${s.key}_r${i}`)
        : i % 4 === 1
          ? addChildOps(def, s.parent!, `bench_new_${i}`, `added_${i}`)
          : i % 4 === 2
            ? deleteOps(def, [s.id])
            : setEventOps(def, t.id, `EVENT_${i}`);
    def = applyOps(def, batch);
    ops += batch.length;
  }
  return { v2: def, ops };
}

export function run(ctx: BenchContext): Promise<void> {
  const v1 = generateChart(1_000);
  const { v2, ops } = editedBy(v1, EDITS);
  const samples: number[] = [];
  let changes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const diff = versionDiff(v1, v2);
    samples.push(performance.now() - t0);
    changes = diff.changes.length;
  }
  const s = summarize(samples);
  const [load1] = os.loadavg();
  ctx.section(
    `version diff: two versions of a ${Object.keys(v1.states).length}-state chart ${ops} ops apart (${os.cpus().length} cores, load ${load1!.toFixed(1)}, ${RUNS} runs)`,
  );
  ctx.report(
    `diff in words + marks + union (${changes} changes): p50 / p95`,
    `${ms(s.p50)} / ${ms(s.p95)}`,
    '< 100 ms',
  );
  return Promise.resolve();
}

import os from 'node:os';
import { benchBackend } from '../backend.ts';
import { measureYjsStorm } from '../hocuspocus.ts';
import { ms, type BenchContext, type Summary } from '../lib.ts';
import { runStormInChild } from '../storm-process.ts';
import type { StormFigures } from '../storm.ts';

/**
 * Sustained rate: how many edits a second ten editors on one machine can make with p99
 * delivery (edit made at one editor -> applied at every other) under 100 ms, Chartroom's
 * real path (editors in a child process, supabase-js, the append rpc, the op stream)
 * beside Yjs over Hocuspocus storing every change in the same PostgreSQL, stepped up the
 * same rates in the same run; then 50 editors at 2 edits a second each.
 * "Durable" here stores every change (debounce 0) but delivers without waiting for the
 * store, as Hocuspocus does; Chartroom's confirmed delivery waits for the commit, and its
 * sent-ahead figure is the one that does not. BENCH_SUSTAINED_SECONDS (default 10) is
 * each step's length; BENCH_SUSTAINED_PROCESSES (default 1) is how many child processes
 * the ten editors are spread over, the same for both (Hocuspocus's server stays in this
 * process, as Chartroom's backend does); BENCH_SUSTAINED_RATES (edits a second per
 * editor, comma-separated) picks the steps.
 * An edit counts as delivered to a peer when the peer applies it, from the op stream or
 * from a log read (the receipt of its own append can name a seq past ops still on their
 * way, and the read it then makes may return first); a step holds only if every appended
 * edit reached every other editor and the stream brought every one of them (an op the
 * stream never brought is an edit not delivered live, printed with its seq, author and peer),
 * and only if at least 90% of the edits asked for were tried at all (Chartroom's editors
 * make fewer than they try: an add whose key another editor's add took first is refused).
 */

const PER_EDITOR = [1, 2, 4, 8, 16, 32, 64];
const EDITORS = 10;
const TARGET_P99_MS = 100;
/** A step holds only if at least this share of the edits asked for was tried (an editors' process too busy to make them is not keeping the rate). */
const TRIED_SHARE = 0.9;

const three = (s: Summary) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;
/** "(applied / expected; not on the stream: n; applied from a log read: n)", and each op the stream never brought. */
function deliveries(ctx: BenchContext, label: string, f: StormFigures): void {
  ctx.report(
    `${label}: applied / expected; never brought by the stream; applied from a log read`,
    `${f.editDelivery.n} / ${f.expectedDeliveries}; ${f.notStreamed.length}; ${f.fromLogRead.length}`,
  );
  for (const m of f.notStreamed.slice(0, 10))
    ctx.report(`${label}: not on the stream`, `seq ${m.seq} by ${m.author} at ${m.peer} (applied: ${m.applied})`);
}

/** Every appended edit applied by every other editor, each brought by the stream. */
const everyDelivered = (f: StormFigures): boolean =>
  f.editDelivery.n >= f.expectedDeliveries && f.notStreamed.length === 0;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export async function run(ctx: BenchContext): Promise<void> {
  const seconds = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 10);
  const processes = Math.max(1, Number(process.env.BENCH_SUSTAINED_PROCESSES ?? 1));
  const rates = process.env.BENCH_SUSTAINED_RATES
    ? process.env.BENCH_SUSTAINED_RATES.split(',').map(Number)
    : PER_EDITOR;
  const backend = await benchBackend();
  try {
    ctx.section(
      `sustained rate: ${EDITORS} editors on one machine, ${seconds} s a step, delivery edit -> each other editor ` +
        `(${os.cpus().length} cores; load average before ${load()})`,
    );
    ctx.report(
      'layout: editors (both) / Chartroom backend and Hocuspocus server',
      `${EDITORS} editors in ${Math.min(processes, EDITORS)} child process(es) / the bench's own process`,
    );
    // The highest rate at which it and every slower step held.
    const best = { chartroom: 0, hocuspocus: 0 };
    const holding = { chartroom: true, hocuspocus: true };
    for (const rate of rates) {
      const total = rate * EDITORS;
      const { figures, load: used } = await runStormInChild({
        url: backend.url,
        anonKey: backend.anonKey,
        editors: EDITORS,
        seconds,
        rate,
        processes,
        pool: backend.pool,
      });
      const yjs = await measureYjsStorm({
        durable: true,
        pool: backend.pool,
        editors: EDITORS,
        rate,
        seconds,
        processes,
      });
      const d = figures.editDelivery;
      ctx.report(`${total} edits/s: Chartroom p50 / p95 / p99`, three(d));
      deliveries(ctx, `${total} edits/s: Chartroom`, figures);
      ctx.report(`${total} edits/s: Chartroom sent ahead, shown p50 / p95 / p99`, three(figures.editAhead));
      const cores = (cpuMs: number, wallMs = used.wallMs) => (cpuMs / wallMs).toFixed(2);
      const asked = total * seconds;
      ctx.report(
        `${total} edits/s: Chartroom edits made / tried / asked; cores used by each editors' process / backend / PostgreSQL / ` +
          'whole machine (of it, anything else)',
        `${figures.edits} / ${figures.tried} / ${asked}; ${used.clientsCpuMsEach.map((c) => cores(c)).join(' + ')} / ` +
          `${cores(used.backendCpuMs)} / ${cores(used.postgresCpuMs)} / ${cores(used.machineBusyMs)} ` +
          `(${cores(Math.max(0, used.machineBusyMs - used.clientsCpuMs - used.backendCpuMs - used.postgresCpuMs))})`,
      );
      ctx.report(
        `${total} edits/s: Hocuspocus edits made / asked; cores used by each editors' process / server`,
        `${yjs.edits} / ${asked}; ${yjs.clientsCpuMsEach.map((c) => cores(c, yjs.wallMs)).join(' + ')} / ` +
          `${cores(yjs.serverCpuMs, yjs.wallMs)}`,
      );
      ctx.report(
        `${total} edits/s: Hocuspocus durable p50 / p95 / p99 (delivered / expected)`,
        `${three(yjs.delivery)} (${yjs.delivery.n} / ${yjs.expectedDeliveries})`,
      );
      holding.chartroom &&= figures.tried >= TRIED_SHARE * asked && everyDelivered(figures) && d.p99 < TARGET_P99_MS;
      holding.hocuspocus &&=
        yjs.edits >= TRIED_SHARE * asked &&
        yjs.delivery.n >= yjs.expectedDeliveries &&
        yjs.delivery.p99 < TARGET_P99_MS;
      if (holding.chartroom) best.chartroom = total;
      if (holding.hocuspocus) best.hocuspocus = total;
    }
    ctx.report(
      `highest rate (and every slower step) with p99 < ${TARGET_P99_MS} ms, every edit delivered, ${TRIED_SHARE * 100}% tried: Chartroom`,
      `${best.chartroom} edits/s`,
    );
    ctx.report(
      `highest rate (and every slower step) with p99 < ${TARGET_P99_MS} ms, every edit delivered, ${TRIED_SHARE * 100}% tried: Hocuspocus durable`,
      `${best.hocuspocus} edits/s`,
    );
    ctx.report(
      'Chartroom / Hocuspocus durable, sustained rate',
      best.hocuspocus > 0 ? `x${(best.chartroom / best.hocuspocus).toFixed(2)}` : 'n/a',
      'x1.00 or more',
    );

    // BENCH_SUSTAINED_MANY=0 leaves out the 50 editors (a profile or a check of one rate).
    if (process.env.BENCH_SUSTAINED_MANY === '0') return;
    const { figures: many } = await runStormInChild({
      url: backend.url,
      anonKey: backend.anonKey,
      editors: 50,
      seconds: seconds * 2,
      rate: 2,
      processes,
    });
    ctx.section(`sustained rate: 50 editors x 2 edits/s x ${seconds * 2} s (load average after ${load()})`);
    ctx.report('edits made / appended', `${many.edits} / ${many.appendedOps}`);
    deliveries(ctx, 'appended x 49 others', many);
    ctx.report('editors converged on the log', `${many.converged} / 50`, '50 / 50');
    ctx.report('edit made -> applied at each other editor p50 / p95 / p99', three(many.editDelivery), 'p99 < 100 ms');
    ctx.report('edit made -> shown ahead at each other editor p50 / p95 / p99', three(many.editAhead));
  } finally {
    await backend.cleanup();
  }
}

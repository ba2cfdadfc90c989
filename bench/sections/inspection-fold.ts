import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { EMPTY_FOLD, foldOnward } from '../../src/lib/inspection/live-fold.ts';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import { foldEvents } from '../../src/lib/inspection/replay.ts';
import { summarize } from '../lib.ts';
import type { BenchContext } from '../lib.ts';

/**
 * The inspection page's fold per live event (frame -> DOM), before and after, in
 * the same run: "before" folds the whole session again on each event (what the page did),
 * "after" folds onward from the last fold (src/lib/inspection/live-fold.ts). A session of
 * a toggle actor (its `@xstate.actor`, then events and snapshots in turn) of each size; the
 * figure is the time to take in the session's last LIVE events, one at a time.
 */

const us = (v: number) => `${(v * 1000).toFixed(1)} µs`;
const SIZES = [200, 2_000, 10_000];
const LIVE = 200;
const DEFINITION = JSON.stringify({ id: 'toggle', initial: 'off', states: { off: {}, on: {} } });

function session(n: number): StoredInspectionEvent[] {
  const out: StoredInspectionEvent[] = [
    {
      seq: 1,
      session_id: 'ses',
      received_at: '2026-11-24T00:00:00Z',
      body: { type: '@xstate.actor', sessionId: 'x:0', _version: '0.7.2', name: 'toggle', definition: DEFINITION },
    },
  ];
  for (let i = 1; i < n; i++)
    out.push({
      seq: i + 1,
      session_id: 'ses',
      received_at: '2026-11-24T00:00:00Z',
      body:
        i % 2 === 1
          ? { type: '@xstate.event', sessionId: 'x:0', _version: '0.7.2', event: { type: 'switch.flip', n: i } }
          : {
              type: '@xstate.snapshot',
              sessionId: 'x:0',
              _version: '0.7.2',
              snapshot: { value: i % 4 === 0 ? 'on' : 'off', context: { flips: i }, status: 'active' },
            },
    });
  return out;
}

export function run(ctx: BenchContext): void {
  const [load1] = os.loadavg();
  ctx.section(
    `inspection: fold per live event, whole session again vs onward (${os.cpus().length} cores, load ${load1!.toFixed(1)}, ${LIVE} live events, p50 / p95)`,
  );
  for (const size of SIZES) {
    const events = session(size);
    const lists = Array.from({ length: LIVE }, (_, i) => events.slice(0, size - LIVE + i + 1));
    const before: number[] = [];
    const after: number[] = [];
    // Alternate the two, so both see the same machine load.
    for (let round = 0; round < 3; round++) {
      for (const list of lists) {
        const t0 = performance.now();
        foldEvents(list);
        before.push(performance.now() - t0);
      }
      let fold = foldOnward(EMPTY_FOLD, events, size - LIVE);
      for (const list of lists) {
        const t0 = performance.now();
        fold = foldOnward(fold, list);
        after.push(performance.now() - t0);
      }
    }
    const b = summarize(before);
    const a = summarize(after);
    ctx.report(
      `${size.toLocaleString('en')} events: whole again / onward`,
      `${us(b.p50)} / ${us(a.p50)}; p95 ${us(b.p95)} / ${us(a.p95)}`,
    );
    ctx.report(`${size.toLocaleString('en')} events: ratio (p50)`, `${(b.p50 / Math.max(a.p50, 1e-6)).toFixed(0)}×`);
  }
}

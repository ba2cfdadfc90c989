import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import type { Page } from 'playwright-core';
import type { Database } from '../src/adapters/supabase/database.types.ts';

/**
 * Where a simulation event's time goes between A's click and B's diagram (see
 * bench/sections/simulation-live.ts). In the pages, on the one clock both read
 * (`performance.timeOrigin + now()`): A's resource timing of the `send_simulation_event`
 * request (when it left, when its answer was in), and in B the arrival of the socket frame
 * that carries the new log entry (a recorder wrapped round `WebSocket` before the app made
 * its socket). In Node: the same function called straight in PostgreSQL as A (claims and
 * call in one round trip, no HTTP), and from there to B's socket frame; and the call
 * rolled back instead of committed (the function's own work, without the commit).
 */

/** Source text run in B before the app: records the arrival time of every frame about a simulation log. */
export const FRAME_RECORDER = `(() => {
  const Native = window.WebSocket;
  const frames = [];
  window.__simFrames = frames;
  const decoder = new TextDecoder();
  class Recording extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const at = performance.timeOrigin + performance.now();
        const d = e.data;
        const text = typeof d === 'string' ? d : d instanceof ArrayBuffer ? decoder.decode(d) : '';
        if (text.includes('sim-log:')) frames.push([at, text]);
      });
    }
  }
  window.WebSocket = Recording;
})()`;

/** In B: when the first frame carrying log entry `seq` arrived (NaN if none did). */
export function frameArrival(page: Page, seq: number): Promise<number> {
  return page.evaluate(`(() => {
    const re = new RegExp('"seq":\\\\s*"?${seq}"?[,}]');
    const hit = (window.__simFrames ?? []).find(([, text]) => re.test(text));
    return hit ? hit[0] : NaN;
  })()`);
}

/** In A: when the last send_simulation_event request left and when its answer was in; timings cleared after. */
export function sendTiming(page: Page): Promise<{ start: number; end: number }> {
  return page.evaluate(`(() => {
    const all = performance.getEntriesByType('resource').filter((e) => e.name.includes('send_simulation_event'));
    const e = all[all.length - 1];
    performance.clearResourceTimings();
    return e ? { start: performance.timeOrigin + e.startTime, end: performance.timeOrigin + e.responseEnd } : { start: NaN, end: NaN };
  })()`);
}

const wall = () => performance.timeOrigin + performance.now();

/**
 * `rounds` events sent straight to PostgreSQL as A (`client`'s session), paced under the
 * rate limit: per call, the round trip (claims, function, commit) and the time until B's
 * socket had the frame carrying it.
 */
export async function directSends(options: {
  adminDatabaseUrl: string;
  client: SupabaseClient<Database>;
  simulationId: string;
  pageB: Page;
  types: [string, string];
  rounds: number;
}): Promise<{ call: number[]; toB: number[]; rolledBack: number[] }> {
  const session = (await options.client.auth.getSession()).data.session;
  if (!session) throw new Error('sim breakdown: A has no session');
  const claims = Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString('utf8');
  const db = new pg.Client({ connectionString: options.adminDatabaseUrl });
  await db.connect();
  const lit = (v: string) => db.escapeLiteral(v);
  const out = { call: [] as number[], toB: [] as number[], rolledBack: [] as number[] };
  try {
    for (let i = 0; i < options.rounds; i++) {
      const type = options.types[i % 2]!;
      const t0 = wall();
      const results = (await db.query(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${lit(claims)}, true);` +
          `select public.send_simulation_event(${lit(options.simulationId)}::uuid, 'event', ${lit(type)}) as r`,
      )) as unknown as pg.QueryResult<{ r: { seq: number } }>[];
      const t1 = wall();
      const seq = results[1]!.rows[0]!.r.seq;
      let at = Number.NaN;
      for (let tries = 0; tries < 500 && Number.isNaN(at); tries++) {
        at = await frameArrival(options.pageB, seq);
        if (Number.isNaN(at)) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (Number.isNaN(at)) throw new Error(`sim breakdown: B never received seq ${seq}`);
      out.call.push(t1 - t0);
      out.toB.push(at - t0);
      // The same call in a transaction that is rolled back: the function without its commit.
      const r0 = wall();
      await db.query(
        `begin; select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${lit(claims)}, true);` +
          `select public.send_simulation_event(${lit(options.simulationId)}::uuid, 'event', ${lit(type)}); rollback`,
      );
      out.rolledBack.push(wall() - r0);
      // Under the rate limit of 50 a second per person.
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  } finally {
    await db.end();
  }
  return out;
}

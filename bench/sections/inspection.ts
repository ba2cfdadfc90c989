import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createWebSocketInspector } from '@statelyai/inspect';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import type { Page } from 'playwright-core';
import WebSocket from 'ws';
import { assign, createActor, createMachine } from 'xstate';
import { INSPECT_TOPIC } from '../../src/lib/inspection/protocol.ts';
import { benchApp } from '../served-app.ts';
import { ms, summarize, type BenchContext, type Summary } from '../lib.ts';

/**
 * Live inspection: a Node app runs a real XState actor with the stock
 * createWebSocketInspector pointed at supabase/functions/inspect, and two members watch in
 * Chromium on /p/<id>/inspect.
 * - latency: actor.send → the active state flips in both browsers' diagram (a
 *   MutationObserver stamps it), and → a member's supabase-js client gets the `events`
 *   broadcast; baseline in the same run: a plain realtime broadcast, Node client to Node client;
 * - sustained ingest: one source's socket pushing protocol events as fast as it can, until
 *   every one is stored and broadcast (loss counted);
 * - memory: the backend process's RSS while a source with the default retention (last
 *   10,000 events) ingests CHARTROOM_BENCH_INSPECT_EVENTS events (default 200,000;
 *   set it to 1,000,000 for the full figure).
 */

const FLIPS = 60;
const WARMUP = 5;
const BURST = 20_000;
const MEMORY_EVENTS = Number(process.env.CHARTROOM_BENCH_INSPECT_EVENTS ?? 200_000);
const CHUNK = 20_000;
const password = 'bench-password-1';
const now = () => performance.timeOrigin + performance.now();
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

const toggle = createMachine({
  id: 'toggle',
  initial: 'off',
  context: { flips: 0 },
  states: {
    off: { on: { 'switch.flip': { target: 'on', actions: assign({ flips: ({ context }) => context.flips + 1 }) } } },
    on: { on: { 'switch.flip': { target: 'off', actions: assign({ flips: ({ context }) => context.flips + 1 }) } } },
  },
});

type Client = SupabaseClient;

function subscribed(channel: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      const state: string = status;
      if (state === 'SUBSCRIBED') resolve();
      else if (state !== 'CLOSED') reject(new Error(`${state}: ${error?.message ?? ''}`));
    });
  });
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`inspection bench: timed out waiting for ${what}`);
    await sleep(5);
  }
}

const figure = (s: Summary) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;

/**
 * Records, in the page, each change of the diagram's active state with a wall-clock stamp.
 * A string, so tsx's name helpers (`__name`) do not travel into the page.
 */
const WATCH_DIAGRAM = `(() => {
  window.__flips = [];
  let last = null;
  const record = function () {
    const el = document.querySelector('[data-testid="inspect-diagram"] [data-active="true"]');
    const path = el ? el.getAttribute('data-state-path') : null;
    if (path === last) return;
    last = path;
    window.__flips.push({ path, t: performance.timeOrigin + performance.now() });
  };
  new MutationObserver(record).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-active'],
  });
  record();
})()`;

const watchDiagram = (page: Page) => page.evaluate(WATCH_DIAGRAM);

/**
 * Stamps, in the page, when a realtime frame carrying flip n first reaches the page's
 * WebSocket (before supabase-js, the machine and React see it): the browser's share of
 * the latency is DOM stamp minus this one. Installed before the app's code runs.
 */
const WATCH_SOCKET = `(() => {
  window.__frames = {};
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const t = performance.timeOrigin + performance.now();
        // realtime-js sends broadcasts as binary frames (a JSON body inside).
        const text =
          typeof e.data === 'string' ? e.data : e.data instanceof ArrayBuffer ? new TextDecoder().decode(e.data) : '';
        if (text.indexOf('switch.flip') < 0) return;
        // The database keeps jsonb keys in its own order: either order of n and type.
        const re = /"n":\\s*(\\d+),\\s*"type":\\s*"switch\\.flip"|"type":\\s*"switch\\.flip",\\s*"n":\\s*(\\d+)/g;
        let m;
        while ((m = re.exec(text))) {
          const n = m[1] ?? m[2];
          if (!(n in window.__frames)) window.__frames[n] = t;
        }
      });
    }
  };
})()`;

const framesSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { __frames: Record<string, number> }).__frames);

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** A CDP CPU profile's functions by self time (ms), largest first. */
function topSelfTime(profile: CpuProfile, n: number): [string, number][] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const frame = byId.get(samples[i]!)?.callFrame;
    if (!frame) continue;
    const file = frame.url.split('/').pop()?.split('?')[0] ?? '';
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (deltas[i] ?? 0) / 1000);
  }
  return [...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, n);
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const flipsSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { __flips: { path: string | null; t: number }[] }).__flips);

/** Opens a raw socket on the function, as the stock inspector does. */
function rawSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const protocolEvent = (n: number) =>
  JSON.stringify({
    type: '@xstate.event',
    sessionId: 'x:0',
    rootId: 'x:0',
    _version: '0.7.2',
    createdAt: String(Date.now()),
    event: { type: 'tick', n },
  });

export async function run(ctx: BenchContext): Promise<void> {
  const bench = await benchApp();
  const { backend, browser } = bench;
  const clients: Client[] = [];
  const client = () => {
    const c = createClient(backend.url, backend.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    clients.push(c);
    return c;
  };
  const person = async (tag: string) => {
    const c = client();
    const email = `bench-inspect-${tag}-${Date.now()}@example.test`;
    const { data, error } = await c.auth.signUp({ email, password });
    if (error || !data.user) throw error ?? new Error('no user');
    return { c, email, id: data.user.id };
  };
  const stops: (() => void)[] = [];
  try {
    const [owner, member] = await Promise.all([person('owner'), person('member')]);
    const project = await owner.c
      .from('projects')
      .insert({ name: 'Bench inspect' })
      .select('id')
      .single<{ id: string }>();
    if (project.error) throw project.error;
    const projectId = project.data.id;
    const added = await owner.c
      .from('project_members')
      .insert({ project_id: projectId, user_id: member.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw added.error;
    const source = async (name: string) => {
      const r = await owner.c.rpc('create_inspection_source', { p_project: projectId, p_name: name });
      if (r.error) throw r.error;
      const { source: s, key } = r.data as { source: { id: string }; key: string };
      return { id: s.id, url: `${backend.url.replace(/^http/, 'ws')}/functions/v1/inspect?key=${key}` };
    };

    // A member's realtime client on inspect:<project>: when each `@xstate.event` arrives.
    const arrived = new Map<number, number>();
    /** When the database stored flip n (received_at: the ingest transaction's start). */
    const storedAt = new Map<number, number>();
    let ticks = 0;
    await member.c.realtime.setAuth();
    const feed = member.c.channel(INSPECT_TOPIC(projectId), { config: { private: true } });
    feed.on('broadcast', { event: 'events' }, ({ payload }) => {
      const t = now();
      for (const row of (payload as { events?: { body: { type: string; event?: { n?: number } } }[] }).events ?? []) {
        if (row.body.type !== '@xstate.event') continue;
        const n = row.body.event?.n;
        if (typeof n !== 'number') continue;
        if (row.body.event && (row.body.event as { type?: string }).type === 'tick') ticks++;
        else {
          arrived.set(n, t);
          storedAt.set(n, Date.parse((row as { received_at?: string }).received_at ?? ''));
        }
      }
    });
    // A batch too big for one message comes as a notice (the page reads its rows back).
    feed.on('broadcast', { event: 'events_stored' }, ({ payload }) => {
      const p = payload as { first_seq: number; last_seq: number };
      ticks += p.last_seq - p.first_seq + 1;
    });
    await subscribed(feed);

    // Two browsers on the inspection page.
    const pages: Page[] = [];
    for (const who of [owner, member]) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript(WATCH_SOCKET);
      const page = await context.newPage();
      await page.goto(bench.url);
      await page.getByLabel('Email').fill(who.email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await page.goto(`${bench.url}/p/${projectId}/inspect`);
      await page.getByRole('list', { name: 'Sources' }).waitFor();
      pages.push(page);
    }

    // The app: a real actor and the stock inspector.
    const app = await source('node app');
    const inspector = createWebSocketInspector({ url: app.url });
    const actor = createActor(toggle, { inspect: inspector.inspect }).start();
    stops.push(
      () => actor.stop(),
      () => inspector.stop(),
    );
    actor.send({ type: 'switch.flip', n: 0 });
    for (const page of pages) {
      await page.getByRole('list', { name: 'Actors' }).getByRole('button', { name: 'toggle' }).click();
      await page.locator('[data-testid="inspect-diagram"] [data-state-path="on"][data-active="true"]').waitFor();
      await watchDiagram(page);
    }

    // Optional: a CPU profile of browser A over the flips (CDP), its top functions by self time.
    const profiling = process.env.CHARTROOM_BENCH_INSPECT_PROFILE === '1';
    const cdp = profiling ? await pages[0]!.context().newCDPSession(pages[0]!) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const toDiagram: number[] = [];
    const toBoth: number[] = [];
    const toClient: number[] = [];
    const toStored: number[] = [];
    const storedToClient: number[] = [];
    const storedToFrame: number[] = [];
    const frameToDiagram: number[] = [];
    for (let n = 1; n <= FLIPS + WARMUP; n++) {
      const expected = n % 2 === 1 ? 'off' : 'on';
      const t0 = now();
      actor.send({ type: 'switch.flip', n });
      const stamps: number[] = [];
      const frames: number[] = [];
      for (const page of pages) {
        await page.waitForFunction(
          ([count, path]) => {
            const flips = (window as unknown as { __flips: { path: string | null }[] }).__flips;
            return flips.length >= count && flips[flips.length - 1]!.path === path;
          },
          [n + 1, expected] as const,
          { polling: 5, timeout: 30_000 },
        );
        const flips = await flipsSeen(page);
        stamps.push(flips[flips.length - 1]!.t - t0);
        frames.push((await framesSeen(page))[String(n)] ?? Number.NaN);
      }
      await until(() => arrived.has(n), `broadcast of flip ${n}`);
      if (n <= WARMUP) continue;
      toDiagram.push(...stamps);
      toBoth.push(Math.max(...stamps));
      toClient.push(arrived.get(n)! - t0);
      const stored = storedAt.get(n)!;
      toStored.push(stored - t0);
      storedToClient.push(arrived.get(n)! - stored);
      for (let i = 0; i < pages.length; i++) {
        storedToFrame.push(frames[i]! - stored);
        frameToDiagram.push(t0 + stamps[i]! - frames[i]!);
      }
    }

    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      ctx.section('inspection: browser A CPU profile over the flips (self time, top 12)');
      for (const [name, t] of topSelfTime(profile, 12)) ctx.report(name.slice(0, 58), ms(t));
    }

    // Baseline: a plain realtime broadcast between two Node clients, same backend, same run.
    const sender = client().channel('bench-inspect-baseline');
    const receiver = client().channel('bench-inspect-baseline');
    const baseArrived = new Map<number, number>();
    receiver.on('broadcast', { event: 'ping' }, ({ payload }) => baseArrived.set((payload as { n: number }).n, now()));
    await Promise.all([subscribed(sender), subscribed(receiver)]);
    const baseline: number[] = [];
    for (let n = 0; n < FLIPS + WARMUP; n++) {
      const t0 = now();
      await sender.send({ type: 'broadcast', event: 'ping', payload: { n } });
      await until(() => baseArrived.has(n), 'baseline broadcast');
      if (n >= WARMUP) baseline.push(baseArrived.get(n)! - t0);
    }

    const diagram = summarize(toDiagram);
    const both = summarize(toBoth);
    const member_ = summarize(toClient);
    const base = summarize(baseline);
    ctx.section(
      `inspection: app event → team (stock inspector, Node app, n = ${FLIPS} flips, load ${os.loadavg()[0]!.toFixed(1)}, p50 / p95 / p99)`,
    );
    ctx.report('→ active state in a browser diagram (2 browsers pooled)', figure(diagram), 'p95 < 100 ms');
    ctx.report('→ active state in BOTH browsers (slower of the two)', figure(both), 'p95 < 100 ms');
    ctx.report("→ a member's supabase-js client gets the broadcast", figure(member_));
    ctx.section('inspection: where the time goes (same flips; wall clocks of one machine)');
    ctx.report('app send → ingest transaction starts (socket, function, RPC)', figure(summarize(toStored)));
    ctx.report('transaction start → Node member client (commit, NOTIFY, fan-out)', figure(summarize(storedToClient)));
    ctx.report("transaction start → browser's WebSocket frame", figure(summarize(storedToFrame)));
    ctx.report(
      'browser frame → active state in the DOM (supabase-js, machine, React)',
      figure(summarize(frameToDiagram)),
    );
    // The function stores what arrived together in one batch: a flip's event and the snapshot it
    // caused (what the diagram shows) share one insert, one commit and one broadcast.
    const batches = await backend.pool.query<{ n: number; inserts: number }>(
      `select (body->'event'->>'n')::int as n, count(distinct received_at)::int as inserts
         from public.inspection_events
        where source_id = $1 and type in ('@xstate.event', '@xstate.snapshot') and body->'event'->>'type' = 'switch.flip'
        group by 1`,
      [app.id],
    );
    const flipRows = batches.rows.filter((r) => r.n > WARMUP);
    ctx.report(
      'flips whose event and snapshot were stored in one insert',
      `${flipRows.filter((r) => r.inserts === 1).length} / ${flipRows.length}`,
    );
    ctx.report('baseline: realtime broadcast Node → Node', figure(base));
    ctx.report(
      'ratio both browsers / baseline (p50, p95)',
      `${ratio(both.p50, base.p50)}, ${ratio(both.p95, base.p95)}`,
    );
    ctx.report(
      'ratio member client / baseline (p50, p95)',
      `${ratio(member_.p50, base.p50)}, ${ratio(member_.p95, base.p95)}`,
    );
    for (const page of pages) await page.context().close();

    // Sustained ingest: one socket, as fast as it can push, every event stored and broadcast.
    const burst = await source('burst');
    await backend.pool.query(
      'update public.inspection_sources set rate_per_second = 100000, max_events = 1000000 where id = $1',
      [burst.id],
    );
    const lastSeq = async (id: string) =>
      Number(
        (
          await backend.pool.query<{ n: string }>('select last_seq as n from public.inspection_sources where id = $1', [
            id,
          ])
        ).rows[0]!.n,
      );
    const ws = await rawSocket(burst.url);
    const before = await lastSeq(burst.id);
    ticks = 0;
    const t0 = now();
    for (let n = 0; n < BURST; n++) ws.send(protocolEvent(n));
    const sent = now() - t0;
    await until(async () => (await lastSeq(burst.id)) - before >= BURST, 'the burst to be stored', 120_000);
    const storedIn = now() - t0;
    await until(() => ticks >= BURST, 'the burst broadcast', 30_000).catch(() => undefined);
    const broadcastIn = now() - t0;
    ws.close();
    ctx.section(`inspection: sustained ingest, one source, ${BURST.toLocaleString('en')} events over one socket`);
    ctx.report('app pushed (send loop)', `${((BURST / sent) * 1000).toFixed(0)} events/s`);
    ctx.report('stored (ingest throughput)', `${((BURST / storedIn) * 1000).toFixed(0)} events/s`, '≥ 2,000 events/s');
    ctx.report('broadcast to a member, all of them', `${((BURST / broadcastIn) * 1000).toFixed(0)} events/s`);
    ctx.report('lost (stored / broadcast)', `${BURST - ((await lastSeq(burst.id)) - before)} / ${BURST - ticks}`, '0');

    // Memory under bounded retention: the default last 10,000 events of the source.
    const kept = await source('retention');
    await backend.pool.query('update public.inspection_sources set rate_per_second = 100000 where id = $1', [kept.id]);
    await member.c.removeAllChannels();
    const mem = await rawSocket(kept.url);
    const rss: number[] = [];
    const rowsOf = async () =>
      Number(
        (
          await backend.pool.query<{ n: string }>(
            'select count(*) as n from public.inspection_events where source_id = $1',
            [kept.id],
          )
        ).rows[0]!.n,
      );
    const m0 = now();
    const rssAt0 = process.memoryUsage().rss / 1024 / 1024;
    for (let done = 0; done < MEMORY_EVENTS; done += CHUNK) {
      for (let n = 0; n < CHUNK; n++) mem.send(protocolEvent(done + n));
      await until(async () => (await lastSeq(kept.id)) >= done + CHUNK, 'a chunk to be stored', 120_000);
      rss.push(process.memoryUsage().rss / 1024 / 1024);
    }
    const rows = await rowsOf();
    const seconds = (now() - m0) / 1000;
    mem.close();
    ctx.section(
      `inspection: memory, ${MEMORY_EVENTS.toLocaleString('en')} events into one source (retention: last 10,000)`,
    );
    const at = (fraction: number) =>
      fraction === 0 ? rssAt0 : rss[Math.max(0, Math.ceil(fraction * rss.length) - 1)]!;
    ctx.report(
      'backend process RSS at 0 / 25 / 50 / 75 / 100 %',
      [0, 0.25, 0.5, 0.75, 1].map((f) => at(f).toFixed(0)).join(' / ') + ' MiB',
      'flat',
    );
    const xs = rss.map((_, i) => ((i + 1) * CHUNK) / 100_000);
    const half = Math.floor(rss.length / 2);
    ctx.report('RSS slope over the run (least squares)', `${slope(xs, rss).toFixed(1)} MiB per 100,000 events`, '≈ 0');
    ctx.report(
      'RSS slope over the second half',
      `${slope(xs.slice(half), rss.slice(half)).toFixed(1)} MiB per 100,000 events`,
      '≈ 0',
    );
    ctx.report('RSS min / max over the run', `${Math.min(...rss).toFixed(0)} / ${Math.max(...rss).toFixed(0)} MiB`);
    ctx.report('events kept in the table', rows.toLocaleString('en'), '≤ 10,000');
    ctx.report('ingest rate over the run', `${(MEMORY_EVENTS / seconds).toFixed(0)} events/s`);
  } finally {
    for (const stop of stops) stop();
    for (const c of clients) {
      await c.removeAllChannels();
      await c.realtime.disconnect();
    }
    await bench.close();
  }
}

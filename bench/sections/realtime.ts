import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { DEFAULT_JWT_SECRET } from '../../server/config.ts';
import { demoKeys } from '../../server/jwt.ts';
import { freePort } from '../../tests/setup/ports.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * Realtime channel layer figures. The backend runs as its own process (the real
 * `server/main.ts`), so its memory is measured apart from the clients in this one.
 * CHARTROOM_BENCH_SOAK_S shortens the soak (default 60 s).
 */

const SUBSCRIBERS = 100;
const RATE = 100;
const LATENCY_SECONDS = 10;
const PRESENCE_MEMBERS = 50;
const PRESENCE_JOINS = 20;
const IDLE_SOCKETS = 500;
const SOAK_CLIENTS = 200;
const SOAK_RATE = 20;
const SOAK_SECONDS = Number(process.env.CHARTROOM_BENCH_SOAK_S ?? 60);

const { anonKey } = demoKeys(DEFAULT_JWT_SECRET);
const sleep = (ms_: number) => new Promise((r) => setTimeout(r, ms_));

interface Server {
  url: string;
  rssMb(): number;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  const root = path.resolve('bench/.tmp');
  await fs.mkdir(root, { recursive: true });
  const dataDir = await fs.mkdtemp(path.join(root, 'realtime-'));
  const port = await freePort();
  const dbPort = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/main.ts',
      '--port',
      String(port),
      '--db-port',
      String(dbPort),
      '--data-dir',
      dataDir,
      '--quiet',
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('backend exited during start');
    if (Date.now() > deadline) throw new Error('backend did not start within 60 s');
    try {
      // An empty batch is a 422 once the realtime service answers.
      const res = await fetch(`${url}/realtime/v1/api/broadcast`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      if (res.status === 422) break;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  return {
    url,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      return kb / 1024;
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

type Client = SupabaseClient;

function client(url: string): Client {
  return createClient<unknown>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

function subscribed(channel: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      const state: string = status;
      if (state === 'SUBSCRIBED') resolve();
      else if (state !== 'CLOSED') reject(new Error(`${state}: ${error?.message ?? ''}`));
    });
  });
}

async function closeAll(clients: Client[]): Promise<void> {
  await Promise.all(
    clients.map(async (c) => {
      await c.removeAllChannels();
      await c.realtime.disconnect();
    }),
  );
}

interface Stamp {
  seq: number;
  t: number;
}

/** N subscribers on one topic, each recording latency and sequence numbers. */
async function audience(url: string, topic: string, n: number) {
  const clients: Client[] = [];
  const latencies: number[] = [];
  const received = new Array<number>(n).fill(0);
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const c = client(url);
      clients.push(c);
      const channel = c.channel(topic);
      channel.on('broadcast', { event: 'tick' }, (m) => {
        const stamp = m.payload as Stamp;
        latencies.push(performance.now() - stamp.t);
        received[i] = (received[i] ?? 0) + 1;
      });
      await subscribed(channel);
    }),
  );
  return { clients, latencies, received };
}

/** N raw protocol subscribers (vsn 2.0.0): the server's cost without the client library's. */
async function rawAudience(url: string, topic: string, n: number) {
  const sockets: WebSocket[] = [];
  const latencies: number[] = [];
  let received = 0;
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${anonKey}&vsn=2.0.0`);
          sockets.push(ws);
          ws.on('error', reject);
          ws.on('open', () => ws.send(JSON.stringify(['1', '1', `realtime:${topic}`, 'phx_join', { config: {} }])));
          ws.on('message', (data: Buffer, binary: boolean) => {
            if (!binary) return resolve();
            // Kind 4: kind, topic, event and metadata sizes, encoding, then the strings and the payload.
            const offset = 5 + data[1]! + data[2]! + data[3]!;
            const stamp = JSON.parse(data.toString('utf8', offset)) as Stamp;
            latencies.push(performance.now() - stamp.t);
            received += 1;
          });
        }),
    ),
  );
  return { sockets, latencies, received: () => received };
}

/**
 * Waits until every expected message arrived, or until nothing more arrives for 2 s
 * (at most 20 s): what is still missing then is lost, not late.
 */
async function drain(count: () => number, expected: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = -1;
  let stableSince = Date.now();
  while (Date.now() < deadline) {
    const now = count();
    if (now >= expected) return;
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 2000) {
      return;
    }
    await sleep(100);
  }
}

/** Sends `rate` messages a second for `seconds` from one sender; returns how many were sent. */
async function pace(channel: RealtimeChannel, rate: number, seconds: number): Promise<number> {
  const total = rate * seconds;
  let start = performance.now();
  for (let seq = 0; seq < total; seq += 1) {
    const due = start + (seq * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    // After a stall, keep the rate rather than catching up in a burst (as a throttled
    // client would); a burst past the server's per-socket limit would be refused.
    else if (wait < -50) start = performance.now() - (seq * 1000) / rate;
    await channel.send({ type: 'broadcast', event: 'tick', payload: { seq, t: performance.now() } satisfies Stamp });
  }
  return total;
}

async function rawBroadcastLatency(ctx: BenchContext, server: Server): Promise<void> {
  const topic = 'bench-latency-raw';
  const { sockets, latencies, received } = await rawAudience(server.url, topic, SUBSCRIBERS);
  const sender = client(server.url);
  const channel = sender.channel(topic);
  await subscribed(channel);
  const sent = await pace(channel, RATE, LATENCY_SECONDS);
  await drain(received, sent * SUBSCRIBERS);
  const s = summarize(latencies);
  ctx.report(
    `broadcast 1 -> ${SUBSCRIBERS} raw sockets at ${RATE}/s, p50 / p99`,
    `${ms(s.p50)} / ${ms(s.p99)}`,
    'p99 < 20 ms',
  );
  ctx.report(`  lost messages (of ${sent * SUBSCRIBERS})`, String(sent * SUBSCRIBERS - received()), '0');
  for (const ws of sockets) ws.close();
  await closeAll([sender]);
}

async function broadcastLatency(ctx: BenchContext, server: Server): Promise<void> {
  const topic = 'bench-latency';
  const { clients, latencies, received } = await audience(server.url, topic, SUBSCRIBERS);
  const sender = client(server.url);
  const channel = sender.channel(topic);
  await subscribed(channel);
  const sent = await pace(channel, RATE, LATENCY_SECONDS);
  const total = () => received.reduce((a, b) => a + b, 0);
  await drain(total, sent * SUBSCRIBERS);
  const s = summarize(latencies);
  ctx.report(
    `broadcast 1 -> ${SUBSCRIBERS} supabase-js clients at ${RATE}/s, p50 / p99`,
    `${ms(s.p50)} / ${ms(s.p99)}`,
    'p99 < 20 ms',
  );
  const lost = sent * SUBSCRIBERS - total();
  ctx.report(`  lost messages (of ${sent * SUBSCRIBERS})`, String(lost), '0');
  await closeAll([...clients, sender]);
}

async function presenceSync(ctx: BenchContext, server: Server): Promise<void> {
  const topic = 'bench-presence';
  const members: Client[] = [];
  for (let i = 0; i < PRESENCE_MEMBERS; i += 1) {
    const c = client(server.url);
    members.push(c);
    const channel = c.channel(topic, { config: { presence: { key: `member-${i}` } } });
    channel.on('presence', { event: 'sync' }, () => undefined);
    await subscribed(channel);
    await channel.track({ i });
  }
  const samples: number[] = [];
  for (let j = 0; j < PRESENCE_JOINS; j += 1) {
    const c = client(server.url);
    const key = `joiner-${j}`;
    const started = performance.now();
    const synced = new Promise<number>((resolve) => {
      const channel = c.channel(topic, { config: { presence: { key } } });
      channel.on('presence', { event: 'sync' }, () => {
        const state = channel.presenceState();
        if (state[key] && Object.keys(state).length >= PRESENCE_MEMBERS + 1) resolve(performance.now() - started);
      });
      channel.subscribe((status) => {
        const state: string = status;
        if (state === 'SUBSCRIBED') void channel.track({ j });
      });
    });
    samples.push(await synced);
    await closeAll([c]);
  }
  const s = summarize(samples);
  ctx.report(`presence join-to-sync (${PRESENCE_MEMBERS} members) p50`, ms(s.p50));
  ctx.report(`presence join-to-sync (${PRESENCE_MEMBERS} members) p99`, ms(s.p99));
  await closeAll(members);
}

async function idleMemory(ctx: BenchContext, server: Server): Promise<void> {
  await sleep(2000);
  const before = server.rssMb();
  const sockets: WebSocket[] = [];
  let joined = 0;
  await Promise.all(
    Array.from(
      { length: IDLE_SOCKETS },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(
            `${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${anonKey}&vsn=2.0.0`,
          );
          sockets.push(ws);
          ws.on('error', reject);
          ws.on('message', () => {
            joined += 1;
            resolve();
          });
          ws.on('open', () =>
            ws.send(JSON.stringify(['1', '1', `realtime:bench-idle-${i % 10}`, 'phx_join', { config: {} }])),
          );
        }),
    ),
  );
  await sleep(2000);
  const after = server.rssMb();
  ctx.report(
    `server RSS with ${IDLE_SOCKETS} idle joined sockets`,
    `${after.toFixed(1)} MB (+${(after - before).toFixed(1)})`,
  );
  ctx.report('server RSS per idle socket', `${(((after - before) * 1024) / Math.max(1, joined)).toFixed(1)} KB`);
  for (const ws of sockets) ws.close();
  await sleep(500);
}

async function soak(ctx: BenchContext, server: Server): Promise<void> {
  const topic = 'bench-soak';
  const { clients, latencies, received } = await audience(server.url, topic, SOAK_CLIENTS);
  const sender = client(server.url);
  const channel = sender.channel(topic);
  await subscribed(channel);
  const startRss = server.rssMb();
  const sent = await pace(channel, SOAK_RATE, SOAK_SECONDS);
  const total = () => received.reduce((a, b) => a + b, 0);
  await drain(total, sent * SOAK_CLIENTS);
  const endRss = server.rssMb();
  const lost = sent * SOAK_CLIENTS - total();
  const s = summarize(latencies);
  ctx.report(
    `soak ${SOAK_SECONDS} s, ${SOAK_CLIENTS} clients, ${SOAK_RATE}/s: lost (of ${sent * SOAK_CLIENTS})`,
    String(lost),
    '0',
  );
  ctx.report('soak latency p50 / p99', `${ms(s.p50)} / ${ms(s.p99)}`);
  ctx.report('soak server RSS start -> end', `${startRss.toFixed(1)} -> ${endRss.toFixed(1)} MB`);
  await closeAll([...clients, sender]);
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('realtime (channels: broadcast, presence, sockets)');
  const server = await startServer();
  try {
    // Memory first, on a fresh server: later phases leave garbage whose collection would blur the delta.
    await idleMemory(ctx, server);
    await rawBroadcastLatency(ctx, server);
    await broadcastLatency(ctx, server);
    await presenceSync(ctx, server);
    await soak(ctx, server);
  } finally {
    await server.stop();
  }
}

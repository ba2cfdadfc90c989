import { AddressInfo } from 'node:net';
import { Database } from '@hocuspocus/extension-database';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { Server } from '@hocuspocus/server';
import type pg from 'pg';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { summarize, type Summary } from './lib.ts';
import { forkShards, split } from './storm-process.ts';
import { wallMs } from './storm.ts';

/**
 * What a team would pick instead of Chartroom's op log: Yjs over a Hocuspocus server, in
 * this process (its editors too, or, for the storm, in child processes as Chartroom's), measured doing the same edit (one key set in a Y.Map) from A to B. With
 * `durable`, the database extension stores every change (debounce 0) into a table in the
 * same PostgreSQL, and `stored` is how long after A's edit that write finished; without
 * it, nothing is stored. Only the bench uses these packages (devDependencies).
 */

export interface YjsFigures {
  remote: Summary;
  stored: Summary | null;
  /** Bytes A sent over its socket per edit (the Yjs update message). */
  bytesPerEdit: number;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Counts the bytes a socket sends. */
function countingSocket(counter: { sent: number }): typeof WebSocket {
  return class extends WebSocket {
    override send(data: unknown, ...rest: unknown[]): void {
      const size = typeof data === 'string' ? Buffer.byteLength(data) : ((data as ArrayBufferLike).byteLength ?? 0);
      counter.sent += size;
      (super.send as (...a: unknown[]) => void)(data, ...rest);
    }
  };
}

/** A Yjs document following the Hocuspocus server at `port` on this machine. */
function openYjs(port: number, polyfill: typeof WebSocket = WebSocket) {
  const doc = new Y.Doc();
  const socket = new HocuspocusProviderWebsocket({ url: `ws://127.0.0.1:${port}`, WebSocketPolyfill: polyfill });
  let synced!: () => void;
  const ready = new Promise<void>((resolve) => (synced = resolve));
  const provider = new HocuspocusProvider({
    websocketProvider: socket,
    name: 'bench',
    document: doc,
    onSynced: () => synced(),
  });
  (provider as unknown as { attach?: () => void }).attach?.();
  const close = () => {
    provider.destroy();
    socket.destroy();
  };
  return { doc, ready, close };
}

/** A Hocuspocus server on a free port; with `durable`, every change stored in PostgreSQL (debounce 0). */
async function hocuspocus(durable: boolean, pool: pg.Pool) {
  const table = `bench_yjs_${Math.random().toString(36).slice(2, 8)}`;
  const storedAt: number[] = [];
  if (durable)
    await pool.query(
      `create table public.${table} (name text primary key, state bytea not null, updated_at timestamptz not null default now())`,
    );
  const extensions = durable
    ? [
        new Database({
          fetch: async ({ documentName }) => {
            const row = await pool.query<{ state: Buffer }>(`select state from public.${table} where name = $1`, [
              documentName,
            ]);
            return row.rows[0] ? new Uint8Array(row.rows[0].state) : null;
          },
          store: async ({ documentName, state }) => {
            await pool.query(
              `insert into public.${table} (name, state) values ($1, $2) on conflict (name) do update set state = excluded.state, updated_at = now()`,
              [documentName, Buffer.from(state)],
            );
            storedAt.push(now());
          },
        }),
      ]
    : [];
  const server = new Server({ port: 0, quiet: true, debounce: 0, maxDebounce: 0, extensions } as never);
  await server.listen();
  const port = (server as unknown as { httpServer: { address(): AddressInfo } }).httpServer.address().port;
  const open = (polyfill: typeof WebSocket) => openYjs(port, polyfill);
  const stop = async () => {
    await server.destroy();
    if (durable) await pool.query(`drop table public.${table}`);
  };
  return { open, port, storedAt, stop };
}

export async function measureYjs(options: {
  durable: boolean;
  pool: pg.Pool;
  count: number;
  warmup: number;
}): Promise<YjsFigures> {
  const { open, storedAt, stop } = await hocuspocus(options.durable, options.pool);
  const counter = { sent: 0 };
  const a = open(countingSocket(counter));
  const b = open(WebSocket);
  await Promise.all([a.ready, b.ready]);
  const seen = new Map<number, number>();
  b.doc.getMap('m').observe(() => {
    const k = b.doc.getMap('m').get('k');
    if (typeof k === 'number' && !seen.has(k)) seen.set(k, now());
  });
  const started = new Map<number, number>();
  const storedFor = new Map<number, number>();
  let bytes = 0;
  for (let k = 1; k <= options.warmup + options.count; k++) {
    const storesBefore = storedAt.length;
    const sentBefore = counter.sent;
    const arrived = new Promise<void>((resolve) => {
      const poll = () => (seen.has(k) ? resolve() : setTimeout(poll, 0));
      poll();
    });
    started.set(k, now());
    a.doc.getMap('m').set('k', k);
    await arrived;
    if (options.durable) {
      const deadline = Date.now() + 2_000;
      while (storedAt.length === storesBefore && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 0));
      if (storedAt.length > storesBefore) storedFor.set(k, storedAt[storedAt.length - 1]!);
    }
    if (k > options.warmup) bytes += counter.sent - sentBefore;
  }
  const remote: number[] = [];
  const stored: number[] = [];
  for (let k = options.warmup + 1; k <= options.warmup + options.count; k++) {
    remote.push(seen.get(k)! - started.get(k)!);
    const s = storedFor.get(k);
    if (s !== undefined) stored.push(s - started.get(k)!);
  }
  a.close();
  b.close();
  await stop();
  return {
    remote: summarize(remote),
    stored: options.durable ? summarize(stored) : null,
    bytesPerEdit: bytes / options.count,
  };
}

export interface YjsStormFigures {
  edits: number;
  /** From an editor's set to each other editor observing it (or a later value of the same key). */
  delivery: Summary;
  expectedDeliveries: number;
  /** The editors' processes, each one's CPU ms over the edits. */
  clientsCpuMsEach: number[];
  /** CPU ms of this process (the Hocuspocus server) over the edits, and their wall time. */
  serverCpuMs: number;
  wallMs: number;
}

/** How a shard of Hocuspocus editors meets the others, through the process that runs the server. */
export interface YjsShardLink {
  /** Reports every editor of this shard synced; answers the wall-clock ms at which every shard starts. */
  ready(): Promise<number>;
  /** Reports how many edits each editor of this shard made; answers every editor's count, once every shard is done. */
  drained(made: number[]): Promise<number[]>;
}

/** What one shard of Hocuspocus editors saw, in wall-clock ms: [editor, tick, ms] of each edit made and each arrival at another editor. */
export interface YjsShardRecords {
  made: [number, number, number][];
  arrived: [number, number, number][];
}

/**
 * One shard of Hocuspocus's side of the sustained-rate storm: `editors` documents (the
 * storm's `first`.. of `total`) on the server at `port`, each setting its own key `rate`
 * times a second for `seconds`, staggered as Chartroom's storm is; every document's
 * observer records the arrival of the others' values. A value superseded before it
 * arrives counts as delivered when the later one does (Yjs may send only the newest).
 */
export async function runYjsShard(options: {
  port: number;
  editors: number;
  first: number;
  total: number;
  rate: number;
  seconds: number;
  link: YjsShardLink;
  /** Called as the first edits start. */
  onStart?: () => void;
}): Promise<YjsShardRecords> {
  const peers = Array.from({ length: options.editors }, () => openYjs(options.port));
  await Promise.all(peers.map((p) => p.ready));
  const made: [number, number, number][] = [];
  const arrived: [number, number, number][] = [];
  const last = peers.map(() => Array.from({ length: options.total }, () => -1));
  peers.forEach((peer, k) => {
    const j = options.first + k;
    const map = peer.doc.getMap<number>('m');
    map.observe((event) => {
      const at = wallMs();
      for (const key of event.keysChanged as Set<string>) {
        const i = Number(key.slice(1));
        if (i === j) continue;
        const tick = map.get(key);
        if (typeof tick !== 'number') continue;
        for (let t = last[k]![i]! + 1; t <= tick; t++) arrived.push([i, t, at]);
        last[k]![i] = Math.max(last[k]![i]!, tick);
      }
    });
  });
  const startAt = await options.link.ready();
  await sleep(Math.max(0, startAt - wallMs()));
  options.onStart?.();
  const interval = 1000 / options.rate;
  const ticks = peers.map(() => 0);
  await Promise.all(
    peers.map(async (peer, k) => {
      const i = options.first + k;
      await sleep((interval / options.total) * i);
      // Each editor's own window of `seconds` from its first tick: `rate` x `seconds` ticks when on time.
      const stopAt = Date.now() + options.seconds * 1000;
      for (let tick = 0; Date.now() < stopAt; tick++) {
        const next = Date.now() + interval;
        made.push([i, tick, wallMs()]);
        peer.doc.getMap<number>('m').set(`e${i}`, tick);
        ticks[k] = tick + 1;
        await sleep(Math.max(0, next - Date.now()));
      }
    }),
  );
  const all = await options.link.drained(ticks);
  // Every value reached every document here, or 10 s passed.
  const caughtUp = () =>
    last.every((seen, k) => all.every((count, i) => i === options.first + k || seen[i]! >= count - 1));
  const deadline = Date.now() + 10_000;
  while (!caughtUp() && Date.now() < deadline) await sleep(20);
  for (const peer of peers) peer.close();
  return { made, arrived };
}

/**
 * Hocuspocus's side of the sustained-rate storm: the server here (with `durable`, every
 * change stored in PostgreSQL), its `editors` documents in `processes` child processes
 * (runYjsShard in bench/storm-child.ts), the same layout as Chartroom's editors.
 */
export async function measureYjsStorm(options: {
  durable: boolean;
  pool: pg.Pool;
  editors: number;
  rate: number;
  seconds: number;
  /** Editors' processes (default 1). */
  processes?: number;
}): Promise<YjsStormFigures> {
  const { port, stop } = await hocuspocus(options.durable, options.pool);
  try {
    const sizes = split(options.editors, Math.max(1, Math.min(options.processes ?? 1, options.editors)));
    const shards = forkShards(
      sizes.map((size, i) => ({
        kind: 'yjs',
        port,
        editors: size,
        first: sizes.slice(0, i).reduce((a, b) => a + b, 0),
        total: options.editors,
        rate: options.rate,
        seconds: options.seconds,
      })),
    );
    await shards.gather('ready');
    const startAt = wallMs() + 200;
    shards.tell({ step: 'go', startAt });
    await sleep(Math.max(0, startAt - wallMs()));
    const cpu0 = process.cpuUsage();
    const wall0 = now();
    const drained = await shards.gather('drained');
    const cpu = process.cpuUsage(cpu0);
    const wall = now() - wall0;
    const ticks = drained.flatMap((m) => m.made as number[]);
    shards.tell({ step: 'settle', all: ticks });
    const records = (await shards.gather('records')).map((m) => m.records as YjsShardRecords);
    const madeAt = new Map(records.flatMap((r) => r.made.map(([i, t, at]) => [`${i}:${t}`, at] as const)));
    const delivery: number[] = [];
    for (const r of records)
      for (const [i, t, at] of r.arrived) {
        const t0 = madeAt.get(`${i}:${t}`);
        if (t0 !== undefined) delivery.push(at - t0);
      }
    const edits = ticks.reduce((a, b) => a + b, 0);
    return {
      edits,
      delivery: summarize(delivery),
      expectedDeliveries: edits * (options.editors - 1),
      clientsCpuMsEach: drained.map((m) => m.cpuMs as number),
      serverCpuMs: (cpu.user + cpu.system) / 1000,
      wallMs: wall,
    };
  } finally {
    await stop();
  }
}

const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

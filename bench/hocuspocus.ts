import { AddressInfo } from 'node:net';
import { Database } from '@hocuspocus/extension-database';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { Server } from '@hocuspocus/server';
import type pg from 'pg';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { summarize, type Summary } from './lib.ts';

/**
 * What a team would pick instead of Chartroom's op log: Yjs over a Hocuspocus server, in
 * this process, measured doing the same edit (one key set in a Y.Map) from A to B. With
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
  const open = (polyfill: typeof WebSocket) => {
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
  };
  const stop = async () => {
    await server.destroy();
    if (durable) await pool.query(`drop table public.${table}`);
  };
  return { open, storedAt, stop };
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
}

/**
 * Hocuspocus's side of the sustained-rate storm: `editors` documents on one server, each
 * setting its own key `rate` times a second for `seconds`, staggered as Chartroom's storm
 * is; every other document's observer times the arrival. A value superseded before it
 * arrives counts as delivered when the later one does (Yjs may send only the newest).
 */
export async function measureYjsStorm(options: {
  durable: boolean;
  pool: pg.Pool;
  editors: number;
  rate: number;
  seconds: number;
}): Promise<YjsStormFigures> {
  const { open, stop } = await hocuspocus(options.durable, options.pool);
  const peers = Array.from({ length: options.editors }, () => open(WebSocket));
  await Promise.all(peers.map((p) => p.ready));
  const madeAt = peers.map(() => [] as number[]);
  const delivery: number[] = [];
  peers.forEach((peer, j) => {
    const last = peers.map(() => -1);
    const map = peer.doc.getMap<number>('m');
    map.observe((event) => {
      const at = now();
      for (const key of event.keysChanged as Set<string>) {
        const i = Number(key.slice(1));
        if (i === j) continue;
        const tick = map.get(key);
        if (typeof tick !== 'number') continue;
        for (let t = last[i]! + 1; t <= tick; t++) delivery.push(at - madeAt[i]![t]!);
        last[i] = Math.max(last[i]!, tick);
      }
    });
  });
  const interval = 1000 / options.rate;
  let edits = 0;
  await Promise.all(
    peers.map(async (peer, i) => {
      await sleep((interval / peers.length) * i);
      // Each editor's own window of `seconds` from its first tick: `rate` x `seconds` ticks when on time.
      const stopAt = Date.now() + options.seconds * 1000;
      for (let tick = 0; Date.now() < stopAt; tick++) {
        const next = Date.now() + interval;
        madeAt[i]!.push(now());
        peer.doc.getMap<number>('m').set(`e${i}`, tick);
        edits++;
        await sleep(Math.max(0, next - Date.now()));
      }
    }),
  );
  const expectedDeliveries = edits * (options.editors - 1);
  const deadline = Date.now() + 10_000;
  while (delivery.length < expectedDeliveries && Date.now() < deadline) await sleep(20);
  for (const peer of peers) peer.close();
  await stop();
  return { edits, delivery: summarize(delivery), expectedDeliveries };
}

const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { DocumentPort } from '../../src/lib/ports/document.ts';
import { summarize, type Summary } from '../lib.ts';
import { cpuMeter, followArrivals, joined } from './collab.ts';

/**
 * Where a remote edit's time goes (Chartroom against durable Hocuspocus). Each
 * round does, one after another on the same 10-state machine: a remote edit through the
 * app's adapter (A commits, B receives), a supabase-js rpc of a read-only SQL function
 * (the HTTP, JWT and REST path with one PostgreSQL round trip and no write), the same
 * append sent straight to PostgreSQL as A (no HTTP: claims and call in one simple-protocol
 * query, one implicit transaction, delivered to B like any append), one durable commit of
 * a small row, and a broadcast from A to B over the socket (no database). Interleaving
 * them gives every part the same share of whatever else runs on the machine, so their
 * ratios hold even when the absolute figures move with the load.
 */

export interface Breakdown {
  remote: Summary;
  committed: Summary;
  appendAtServer: Summary;
  rpcFloor: Summary;
  direct: Summary;
  directAtB: Summary;
  durable: Summary;
  socket: Summary;
  /** CPU per remote edit: this process (A, B and the backend), and PostgreSQL's processes. */
  cpu: { node: number; postgres: number };
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function until(done: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`breakdown: ${what} did not arrive within ${ms} ms`);
    await tick();
  }
}

export async function measureBreakdown(options: {
  pool: pg.Pool;
  adminDatabaseUrl: string;
  a: SupabaseClient<Database>;
  b: SupabaseClient<Database>;
  portA: DocumentPort;
  portB: DocumentPort;
  machineId: string;
  appendTimer: { start(): void; stop(): number[] };
  rounds: number;
  warmup: number;
}): Promise<Breakdown> {
  const { a, b, portA, portB, machineId } = options;
  const session = (await a.auth.getSession()).data.session;
  if (!session) throw new Error('breakdown: A has no session');
  const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString('utf8')) as object;
  const direct = new pg.Client({ connectionString: options.adminDatabaseUrl });
  await direct.connect();
  const table = `bench_breakdown_${Math.random().toString(36).slice(2, 8)}`;
  await direct.query(`create table public.${table} (id bigserial primary key, v text not null)`);
  const { arrivals, sub } = await followArrivals(portB, machineId);
  const heard = new Map<number, number>();
  const topic = `bench-breakdown-${randomUUID()}`;
  const sender = a.channel(topic, { config: { broadcast: { self: false } } });
  const listener = b
    .channel(topic, { config: { broadcast: { self: false } } })
    .on('broadcast', { event: 'ping' }, (m: { payload?: { k?: number } }) => {
      if (typeof m.payload?.k === 'number') heard.set(m.payload.k, now());
    });
  await Promise.all([joined(sender), joined(listener)]);
  const lit = (v: string) => direct.escapeLiteral(v);
  const samples = {
    remote: [] as number[],
    committed: [] as number[],
    rpcFloor: [] as number[],
    direct: [] as number[],
    directAtB: [] as number[],
    durable: [] as number[],
    socket: [] as number[],
  };
  try {
    for (let i = 1; i <= options.warmup + options.rounds; i++) {
      const keep = i > options.warmup;
      if (i === options.warmup + 1) options.appendTimer.start();
      // 1. A remote edit through the adapter.
      let t0 = now();
      const result = await portA.commitOps({
        machineId,
        clientId: 'bench-a',
        batchId: randomUUID(),
        ops: [{ type: 'machine.update', changes: { name: `breakdown ${i}` } }],
      });
      const t1 = now();
      if (!result.ok) throw new Error(result.error.message);
      const seq = result.receipt.lastSeq;
      await until(() => arrivals.has(seq), `edit ${seq}`);
      if (keep) {
        samples.committed.push(t1 - t0);
        samples.remote.push(arrivals.get(seq)! - t0);
      }
      // 2. The REST path alone: a read-only function, one PostgreSQL round trip.
      t0 = now();
      const floor = await a.rpc('machine_checkpoint_interval');
      if (floor.error) throw new Error(floor.error.message);
      if (keep) samples.rpcFloor.push(now() - t0);
      // 3. The same append straight to PostgreSQL, as A, in one round trip.
      const ops = JSON.stringify([{ type: 'machine.update', changes: { name: `direct ${i}` } }]);
      t0 = now();
      const answered = await direct.query<{ r: { last_seq: number } }>(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${lit(JSON.stringify(claims))}, true);` +
          `select public.commit_machine_ops(${lit(machineId)}::uuid, 'bench-direct', ${lit(randomUUID())}::uuid, ${lit(ops)}::jsonb) as r`,
      );
      const t2 = now();
      const results = answered as unknown as pg.QueryResult<{ r: { last_seq: number } }>[];
      const directSeq = results[1]!.rows[0]!.r.last_seq;
      await until(() => arrivals.has(directSeq), `direct append ${directSeq}`);
      if (keep) {
        samples.direct.push(t2 - t0);
        samples.directAtB.push(arrivals.get(directSeq)! - t0);
      }
      // 4. One durable commit of a small row.
      t0 = now();
      await direct.query(`insert into public.${table} (v) values ($1)`, [`row ${i}`]);
      if (keep) samples.durable.push(now() - t0);
      // 5. The socket alone: a broadcast from A to B.
      t0 = now();
      await sender.send({ type: 'broadcast', event: 'ping', payload: { k: i } });
      await until(() => heard.has(i), `broadcast ${i}`);
      if (keep) samples.socket.push(heard.get(i)! - t0);
    }
    const appendAtServer = options.appendTimer.stop();
    // CPU per remote edit, edits alone.
    const meter = await cpuMeter(options.pool);
    for (let i = 1; i <= options.rounds; i++) {
      const result = await portA.commitOps({
        machineId,
        clientId: 'bench-a',
        batchId: randomUUID(),
        ops: [{ type: 'machine.update', changes: { name: `cpu ${i}` } }],
      });
      if (!result.ok) throw new Error(result.error.message);
      const seq = result.receipt.lastSeq;
      await until(() => arrivals.has(seq), `edit ${seq}`);
    }
    const cpu = meter();
    return {
      remote: summarize(samples.remote),
      committed: summarize(samples.committed),
      appendAtServer: summarize(appendAtServer),
      rpcFloor: summarize(samples.rpcFloor),
      direct: summarize(samples.direct),
      directAtB: summarize(samples.directAtB),
      durable: summarize(samples.durable),
      socket: summarize(samples.socket),
      cpu: { node: cpu.node / options.rounds, postgres: cpu.postgres / options.rounds },
    };
  } finally {
    sub.unsubscribe();
    await a.removeChannel(sender);
    await b.removeChannel(listener);
    await direct.query(`drop table public.${table}`).catch(() => undefined);
    await direct.end();
  }
}

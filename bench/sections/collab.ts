import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import type pg from 'pg';
import WebSocket from 'ws';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import type { MachineDefinition, StateNode } from '../../src/lib/model/types.ts';
import type { DocumentPort } from '../../src/lib/ports/document.ts';
import { emptyDefinition } from '../../tests/adapters/machines-fixtures.ts';
import { benchBackend } from '../backend.ts';
import { ms, summarize, type BenchContext, type Summary } from '../lib.ts';

/**
 * Collaboration over the embedded backend, two signed-in supabase-js clients in Node
 * (in this one process, with the backend):
 * - remote edit: from A starting a commit (commit_machine_ops through the machines
 *   adapter, one op per batch, as the document machine sends it) to B's machine_ops
 *   stream delivering the op (the aim: p95 under 50 ms), for a small and a
 *   200-state definition, then the 200-state one again with B also following the
 *   project's machine list, as the room does;
 * - in the same run, the baselines it is read against: a broadcast from A to B (the
 *   socket path alone) and a plain insert into a small table without RLS streamed to B
 *   (the postgres-changes floor: REST, WAL, decoding, routing, socket).
 * A acts again as soon as its previous action returned (a stress test: ~100 commits a
 * second), then, for the last cases and a second plain-insert baseline, once every 50 ms
 * (20 edits a second, someone dragging or typing fast; the document machine sends one
 * commit at a time and batches what is typed meanwhile).
 */

const COUNT = 200;
const WARMUP = 20;
const PACE_MS = 50;

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A definition with `n` atomic states under the root, about the size people draw. */
export function definitionWith(n: number): MachineDefinition {
  const def = emptyDefinition(`bench-${n}`);
  const root = def.states[def.root] as StateNode;
  const states: Record<string, StateNode> = {};
  const children: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `s_${i}`;
    children.push(id);
    states[id] = {
      ...root,
      id,
      key: `state${i}`,
      parent: def.root,
      type: 'atomic',
      children: [],
      description: `State number ${i}`,
      tags: ['bench'],
    };
  }
  return {
    ...def,
    states: { ...def.states, [def.root]: { ...root, children, initial: children[0] ?? null }, ...states },
  };
}

/** A new signed-up person's client; `wire` swaps in a counting fetch or socket. */
/** The password of every bench person (person below). */
export const PERSON_PASSWORD = 'correct-horse-battery';

export async function person(
  url: string,
  anonKey: string,
  tag: string,
  wire: { fetch?: typeof fetch; transport?: typeof WebSocket } = {},
): Promise<{ client: SupabaseClient<Database>; id: string }> {
  const client = createClient<Database>(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: (wire.transport ?? WebSocket) as never },
    ...(wire.fetch ? { global: { fetch: wire.fetch } } : {}),
  });
  const { data, error } = await client.auth.signUp({
    email: `${tag}-${randomUUID().slice(0, 8)}@example.test`,
    password: PERSON_PASSWORD,
  });
  if (error || !data.user) throw error ?? new Error('no user');
  return { client, id: data.user.id };
}

/**
 * Follows a machine's op stream; resolves once it is live, with when each seq arrived
 * from the log and when each batch was first seen ahead of it (by batch id).
 */
export async function followArrivals(
  port: DocumentPort,
  machineId: string,
): Promise<{ arrivals: Map<number, number>; seen: Map<string, number>; sub: { unsubscribe(): void } }> {
  const arrivals = new Map<number, number>();
  const seen = new Map<string, number>();
  let subscribed!: () => void;
  const ready = new Promise<void>((resolve) => (subscribed = resolve));
  const sub = port.opEvents$(machineId).subscribe((event) => {
    if (event.type === 'ops.subscribed') subscribed();
    if (event.type === 'ops.received') for (const op of event.ops) arrivals.set(op.seq, now());
    if (event.type === 'ops.seen' && !seen.has(event.batch.batchId)) seen.set(event.batch.batchId, now());
  });
  await ready;
  return { arrivals, seen, sub };
}

/** Subscribes a channel and resolves once the server confirmed the join. */
export function joined(channel: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      const state = status as string;
      if (state === 'SUBSCRIBED') resolve();
      if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT') reject(error ?? new Error(state));
    });
  });
}

/** CPU time (ms) of this process and of the database's processes, for a per-action figure. */
export async function cpuMeter(pool: pg.Pool): Promise<() => { node: number; postgres: number }> {
  const pids = (await pool.query<{ pid: number }>('select pid from pg_stat_activity')).rows.map((r) => r.pid);
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const pgTime = (): number => {
    let sum = 0;
    for (const pid of pids) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        sum += (Number(fields[11]) + Number(fields[12])) * tick;
      } catch {
        // Not Linux, or the process ended: the figure leaves it out.
      }
    }
    return sum;
  };
  const node0 = process.cpuUsage();
  const pg0 = pgTime();
  return () => {
    const node = process.cpuUsage(node0);
    return { node: (node.user + node.system) / 1000, postgres: pgTime() - pg0 };
  };
}

interface Run {
  remote: Summary;
  afterReturn: Summary;
  returned: Summary;
  delivered: number;
  cpu: { node: number; postgres: number };
}

/**
 * Drives WARMUP + COUNT actions one after another; `act(key)` performs one and resolves
 * when A has its answer, `arrivals` is filled with when B saw each key.
 */
async function drive(
  pool: pg.Pool,
  arrivals: Map<number, number>,
  act: (key: number) => Promise<void>,
  paceMs = 0,
): Promise<Run> {
  const started = new Map<number, number>();
  const returned = new Map<number, number>();
  let meter: (() => { node: number; postgres: number }) | null = null;
  for (let key = 1; key <= WARMUP + COUNT; key++) {
    if (key === WARMUP + 1) meter = await cpuMeter(pool);
    const t0 = now();
    started.set(key, t0);
    await act(key);
    returned.set(key, now());
    const wait = paceMs - (now() - t0);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const deadline = Date.now() + 5_000;
  while (arrivals.size < WARMUP + COUNT && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const cpu = meter?.() ?? { node: Number.NaN, postgres: Number.NaN };
  const remote: number[] = [];
  const afterReturn: number[] = [];
  const answered: number[] = [];
  for (let key = WARMUP + 1; key <= WARMUP + COUNT; key++) {
    const t0 = started.get(key)!;
    const t1 = returned.get(key)!;
    answered.push(t1 - t0);
    const arrived = arrivals.get(key);
    if (arrived === undefined) continue;
    remote.push(arrived - t0);
    afterReturn.push(arrived - t1);
  }
  return {
    remote: summarize(remote),
    afterReturn: summarize(afterReturn),
    returned: summarize(answered),
    delivered: remote.length,
    cpu: { node: cpu.node / COUNT, postgres: cpu.postgres / COUNT },
  };
}

const three = (s: Summary) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;
const ratio = (a: Summary, b: Summary) =>
  `x${(a.p50 / b.p50).toFixed(1)} / x${(a.p95 / b.p95).toFixed(1)} / x${(a.p99 / b.p99).toFixed(1)}`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend();
  const a = await person(backend.url, backend.anonKey, 'bench-a');
  const b = await person(backend.url, backend.anonKey, 'bench-b');
  try {
    ctx.section(
      `collab: ${os.cpus().length} cores, load average at start ${load()}; figures p50 / p95 / p99 over ${COUNT} sequential actions`,
    );
    const project = await a.client.from('projects').insert({ name: 'bench' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const added = await a.client
      .from('project_members')
      .insert({ project_id: project.data.id, user_id: b.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw new Error(added.error.message);
    await backend.pool.query(`
      create table public.bench_collab_pings (id bigserial primary key, k int not null, note text);
      grant select on public.bench_collab_pings to authenticated;
      alter publication supabase_realtime add table public.bench_collab_pings;`);

    // Baseline 1: a broadcast from A to B, each sent once the previous one arrived.
    const heard = new Map<number, number>();
    let wake: (() => void) | null = null;
    const topic = `bench-collab-${randomUUID()}`;
    const sender = a.client.channel(topic, { config: { broadcast: { self: false } } });
    const listener = b.client
      .channel(topic, { config: { broadcast: { self: false } } })
      .on('broadcast', { event: 'ping' }, (m: { payload?: { k?: number } }) => {
        if (typeof m.payload?.k === 'number') heard.set(m.payload.k, now());
        wake?.();
      });
    await Promise.all([joined(sender), joined(listener)]);
    const broadcast = await drive(backend.pool, heard, async (k) => {
      const arrived = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        wake = () => {
          if (!heard.has(k)) return;
          clearTimeout(timer);
          resolve();
        };
      });
      await sender.send({ type: 'broadcast', event: 'ping', payload: { k } });
      await arrived;
      wake = null;
    });
    await a.client.removeChannel(sender);
    await b.client.removeChannel(listener);

    // Baseline 2: a plain insert into a small table without RLS, streamed to B.
    const plainInsert = async (paceMs: number): Promise<Run> => {
      const pinged = new Map<number, number>();
      const offset = paceMs === 0 ? 0 : 10_000;
      const pings = b.client
        .channel(`bench-pings-${randomUUID()}`)
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'bench_collab_pings' },
          (payload: { new: { k?: number } }) => {
            if (typeof payload.new.k === 'number') pinged.set(payload.new.k - offset, now());
          },
        );
      await joined(pings);
      const result = await drive(
        backend.pool,
        pinged,
        async (k) => {
          const { error } = await a.client
            .from('bench_collab_pings' as never)
            .insert({ k: k + offset, note: `ping ${k}` } as never);
          if (error) throw new Error(error.message);
        },
        paceMs,
      );
      await b.client.removeChannel(pings);
      return result;
    };
    const insert = await plainInsert(0);

    ctx.report('broadcast A -> B', three(broadcast.remote));
    ctx.report('plain insert (no RLS) A starts -> B receives', three(insert.remote));
    ctx.report("plain insert: A's round trip", three(insert.returned));

    const portA = createMachinesAdapter(a.client);
    const portB = createMachinesAdapter(b.client);
    const cases = [
      { size: 0, list: false, pace: 0 },
      { size: 200, list: false, pace: 0 },
      { size: 200, list: true, pace: 0 },
      { size: 0, list: false, pace: PACE_MS },
      { size: 200, list: true, pace: PACE_MS },
    ];
    let pacedInsert: Run | null = null;
    for (const { size, list, pace } of cases) {
      if (pace > 0 && !pacedInsert) {
        pacedInsert = await plainInsert(pace);
        ctx.section(`collab: one action every ${pace} ms from here on`);
        ctx.report('plain insert (no RLS) A starts -> B receives', three(pacedInsert.remote));
      }
      const baseline = pace > 0 && pacedInsert ? pacedInsert : insert;
      const definition = definitionWith(size);
      const created = await portA.createMachine({
        projectId: project.data.id,
        name: `bench ${size}${list ? ' list' : ''}`,
        definition,
      });
      if (!created.ok) throw new Error(created.error.message);
      const machineId = created.value.id;

      const { arrivals, sub } = await followArrivals(portB, machineId);
      let listed = 0;
      const machineList = list
        ? b.client
            .channel(`bench-list-${randomUUID()}`)
            .on(
              'postgres_changes',
              { event: '*', schema: 'public', table: 'machines', filter: `project_id=eq.${project.data.id}` },
              () => listed++,
            )
        : null;
      if (machineList) await joined(machineList);

      const edit = await drive(
        backend.pool,
        arrivals,
        async (seq) => {
          const result = await portA.commitOps({
            machineId,
            clientId: 'bench-a',
            batchId: randomUUID(),
            ops: [{ type: 'machine.update', changes: { name: `rename ${seq}` } }],
          });
          if (!result.ok) throw new Error(result.error.message);
        },
        pace,
      );
      sub.unsubscribe();
      if (machineList) await b.client.removeChannel(machineList);

      const kb = (JSON.stringify(definition).length / 1024).toFixed(0);
      const how = pace > 0 ? `one commit every ${pace} ms` : 'back to back';
      ctx.section(
        `collab: ${size === 0 ? 'empty definition' : `${size}-state definition (${kb} KB)`}, ${how}${list ? ', B also following the machine list' : ''}`,
      );
      ctx.report('commit round trip (A)', three(edit.returned));
      ctx.report('remote edit (A commits -> B receives)', three(edit.remote), 'p95 < 50 ms');
      ctx.report("B receives after A's commit returned", three(edit.afterReturn));
      ctx.report(`remote edit vs plain insert${pace > 0 ? ' (paced alike)' : ''}`, ratio(edit.remote, baseline.remote));
      ctx.report('remote edit vs broadcast', ratio(edit.remote, broadcast.remote));
      ctx.report('CPU per commit: this process (server + both clients)', ms(edit.cpu.node));
      ctx.report('CPU per commit: postgres', ms(edit.cpu.postgres));
      ctx.report('ops delivered to B', `${edit.delivered} / ${COUNT}`);
      if (list) ctx.report('machine-list changes B received', `${listed}`);
    }
    ctx.section(`collab: load average at end ${load()}`);
  } finally {
    await a.client.removeAllChannels();
    await b.client.removeAllChannels();
    await backend.cleanup();
  }
}

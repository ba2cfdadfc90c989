import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import WebSocket from 'ws';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { createDoc, receive } from '../../src/lib/collab/doc.ts';
import type { DocState } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { DocumentPort } from '../../src/lib/ports/document.ts';
import { benchBackend } from '../backend.ts';
import { measureYjs, type YjsFigures } from '../hocuspocus.ts';
import { ms, requestTimer, summarize, within, type BenchContext, type LoopLag, type Summary } from '../lib.ts';
import { runStormInChild } from '../storm-process.ts';
import { appendInPostgres, installAppend, type AppendBody } from './append-baseline.ts';
import { measureBreakdown } from './collab-breakdown.ts';
import { definitionWith, followArrivals, person } from './collab.ts';

/**
 * The collaboration protocol's figures, in one run and side by side: the append protocol under 50 editors,
 * bytes on the wire per edit by chart size, a remote edit Node -> Node by chart size, the
 * load of a machine with 100,000 ops (checkpoint plus tail), and Yjs over Hocuspocus
 * doing the same edit (with and without durable storage), as ratios.
 * BENCH_STORM_SECONDS (default 60) and BENCH_STORM_EDITORS (default 50) shorten the storm
 * for a quick look, and BENCH_STORM_ONLY=1 stops after the storm; the closing note reports the defaults. The storm's editors run in a
 * child process (bench/storm-child.ts), so the figures measure the server rather than 50
 * clients sharing its event loop; the CPU each side used is printed with them, since on
 * a shared 2-core machine everything else running competes for the same cores.
 */

const EDITS = 100;
const WARMUP = 10;
const LOG_OPS = 100_000;
/** How long one step of the 100,000-op part may take before the bench stops with its name (a full run once hung there). */
const STEP_MS = 60_000;
const LONG_STEP_MS = 300_000;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const three = (s: Summary) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;

/** Counts HTTP request and response body bytes, and WebSocket bytes received. */
function wireMeter() {
  const counted = { http: 0, socket: 0 };
  const countingFetch: typeof fetch = async (input, init) => {
    const body = init?.body;
    if (typeof body === 'string') counted.http += Buffer.byteLength(body);
    const response = await fetch(input, init);
    const copy = await response.clone().arrayBuffer();
    counted.http += copy.byteLength;
    return response;
  };
  class CountingSocket extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      this.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
        counted.socket += Array.isArray(data)
          ? data.reduce((n, b) => n + b.length, 0)
          : 'byteLength' in data
            ? data.byteLength
            : 0;
      });
    }
  }
  return { counted, fetch: countingFetch, transport: CountingSocket as unknown as typeof WebSocket };
}

/** A edits (one op per commit, as the document machine sends a lone edit), B receives: latency and bytes. */
async function edits(
  portA: DocumentPort,
  portB: DocumentPort,
  machineId: string,
  meterA: { http: number },
  meterB: { socket: number },
) {
  const { arrivals, seen, sub } = await followArrivals(portB, machineId);
  // A's document is open too, as in the app: its batches go to B ahead of the log.
  const { sub: subA } = await followArrivals(portA, machineId);
  const remote: number[] = [];
  const ahead: number[] = [];
  let http = 0;
  let socket = 0;
  for (let i = 1; i <= WARMUP + EDITS; i++) {
    const http0 = meterA.http;
    const socket0 = meterB.socket;
    const t0 = now();
    const batchId = randomUUID();
    const result = await portA.commitOps({
      machineId,
      clientId: 'bench-a',
      batchId,
      ops: [{ type: 'machine.update', changes: { name: `edit ${i}` } }],
    });
    if (!result.ok) throw new Error(result.error.message);
    const seq = result.receipt.lastSeq;
    const deadline = Date.now() + 5_000;
    while (!arrivals.has(seq) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 0));
    if (i <= WARMUP) continue;
    remote.push((arrivals.get(seq) ?? Number.NaN) - t0);
    ahead.push((seen.get(batchId) ?? Number.NaN) - t0);
    http += meterA.http - http0;
    socket += meterB.socket - socket0;
  }
  sub.unsubscribe();
  subA.unsubscribe();
  return {
    remote: summarize(remote.filter((x) => !Number.isNaN(x))),
    /** Sent ahead: A sends -> B has the batch, before it is durable (batches not seen ahead left out). */
    ahead: summarize(ahead.filter((x) => !Number.isNaN(x))),
    aheadSeen: ahead.filter((x) => !Number.isNaN(x)).length,
    httpBytes: http / EDITS,
    socketBytes: socket / EDITS,
  };
}

/**
 * What any durable edit costs at least on this machine: one small row inserted and
 * committed (synchronous_commit on, so the WAL is flushed to disk), one at a time.
 * An append is delivered only after its commit, so this bounds Chartroom's remote edit.
 */
async function durableCommitFloor(pool: pg.Pool): Promise<Summary> {
  const table = `bench_floor_${Math.random().toString(36).slice(2, 8)}`;
  await pool.query(`create table public.${table} (id bigserial primary key, v text not null)`);
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP + EDITS; i++) {
      const t0 = now();
      await pool.query(`insert into public.${table} (v) values ($1)`, [`edit ${i}`]);
      if (i >= WARMUP) samples.push(now() - t0);
    }
  } finally {
    await pool.query(`drop table public.${table}`);
  }
  return summarize(samples);
}

export async function run(ctx: BenchContext): Promise<void> {
  // The gateway's request log times each append at the server (the storm's breakdown).
  const appendTimer = requestTimer('/rest/v1/rpc/commit_machine_ops');
  const backend = await benchBackend({ logRequests: true, log: appendTimer.log });
  const meterA = wireMeter();
  const meterB = wireMeter();
  const a = await person(backend.url, backend.anonKey, 'proto-a', meterA);
  const b = await person(backend.url, backend.anonKey, 'proto-b', meterB);
  try {
    const project = await a.client.from('projects').insert({ name: 'bench protocol' }).select('id').single();
    if (project.error) throw new Error(project.error.message);
    const projectId = project.data.id;
    const added = await a.client
      .from('project_members')
      .insert({ project_id: projectId, user_id: b.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw new Error(added.error.message);
    const portA = createMachinesAdapter(a.client);
    const portB = createMachinesAdapter(b.client);

    // 1. Many editors on one machine.
    const seconds = Number(process.env.BENCH_STORM_SECONDS ?? 60);
    const editors = Number(process.env.BENCH_STORM_EDITORS ?? 50);
    const loadBefore = loadAverage();
    const { figures: storm, load: used } = await runStormInChild({
      url: backend.url,
      anonKey: backend.anonKey,
      editors,
      seconds,
      pool: backend.pool,
      appendTimer,
    });
    ctx.section(
      `collab protocol: ${editors} editors x 1 commit/s x ${seconds} s on one machine (${os.cpus().length} cores; ` +
        `load average before ${loadBefore}, after ${loadAverage()})`,
    );
    ctx.report('editors run in a child process, apart from the backend', 'yes');
    const cores = (cpuMs: number) => `${(cpuMs / used.wallMs).toFixed(2)} cores`;
    ctx.report('CPU while editing: backend process (HTTP, REST, realtime)', cores(used.backendCpuMs));
    ctx.report('CPU while editing: its PostgreSQL', cores(used.postgresCpuMs));
    ctx.report(`CPU while editing: the ${editors} editors' process`, cores(used.clientsCpuMs));
    ctx.report('CPU while editing: the whole machine (every process)', cores(used.machineBusyMs));
    ctx.report('edits made / appended', `${storm.edits} / ${storm.appendedOps}`);
    ctx.report('commits refused for being behind', `${storm.refusedBehind}`, '0');
    ctx.report('commits refused for any other reason', `${storm.refusedOther}`);
    ctx.report(
      'editors converged on checkpoint + log replayed',
      `${storm.converged} / ${editors}`,
      `${editors} / ${editors}`,
    );
    ctx.report('op delivery to each other editor p50 / p95 / p99', three(storm.delivery), 'p99 < 250 ms');
    ctx.report('deliveries measured', `${storm.delivery.n}`);
    ctx.report(
      'sent ahead of the log to each other editor (shown before durable) p50 / p95 / p99',
      storm.aheadDelivery.n > 0 ? three(storm.aheadDelivery) : 'n/a',
    );
    ctx.report(
      'batches shown ahead but never confirmed (rolled back), per 1,000 edits',
      storm.edits > 0 ? ((storm.rolledBack * 1000) / storm.edits).toFixed(2) : 'n/a',
      '0',
    );
    ctx.report(
      'op delivery to a dedicated observer (own process) p50 / p95 / p99',
      storm.observerDelivery.n > 0 ? three(storm.observerDelivery) : 'n/a',
      'p99 < 250 ms',
    );
    ctx.report('commit round trip p50 / p95 / p99', three(storm.roundTrip));
    const lag = (l: LoopLag) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}`;
    ctx.report(
      'where delivery goes: append at the server (request to answer) p50 / p95 / p99',
      three(used.appendAtServer),
    );
    ctx.report(
      'where delivery goes: inside commit_machine_ops in PostgreSQL, mean',
      used.appendInPostgresMs === null ? 'n/a' : ms(used.appendInPostgresMs),
    );
    ctx.report("where delivery goes: editors' event-loop delay p50 / p99 / max", lag(used.clientsLag));
    ctx.report("where delivery goes: backend's event-loop delay p50 / p99 / max", lag(used.backendLag));
    ctx.report('own ops reported dropped (told in words)', `${storm.dropped}`);
    ctx.report('log reads after a gap: receipt / stream', `${storm.receiptGaps} / ${storm.streamGaps}`);
    ctx.report(
      'deliveries the stream never brought / applied from a log read first',
      `${storm.notStreamed.length} / ${storm.fromLogRead.length}`,
      '0 / any',
    );

    if (process.env.BENCH_STORM_ONLY === '1') return;

    // 2 and 3. Bytes and latency per edit by chart size.
    const sizes = [10, 200, 1000];
    const bySize = new Map<number, Awaited<ReturnType<typeof edits>>>();
    // The same edits with the append's old body in place (20261124000400), just before.
    const oldBySize = new Map<number, Summary>();
    const machineBySize = new Map<number, string>();
    const withBody = async (which: AppendBody, machineId: string) => {
      await installAppend(backend.pool, which);
      return edits(portA, portB, machineId, meterA.counted, meterB.counted);
    };
    try {
      for (const size of sizes) {
        const created = await portA.createMachine({
          projectId,
          name: `bench ${size}`,
          definition: definitionWith(size),
        });
        if (!created.ok) throw new Error(created.error.message);
        machineBySize.set(size, created.value.id);
        oldBySize.set(size, (await withBody('old', created.value.id)).remote);
        bySize.set(size, await withBody('new', created.value.id));
      }
    } finally {
      await installAppend(backend.pool, 'new');
    }
    ctx.section('collab protocol: one edit by chart size (A commits one op, B receives it)');
    for (const size of sizes) {
      const f = bySize.get(size)!;
      ctx.report(
        `${size} states: commit request + response bytes / socket bytes at B`,
        `${f.httpBytes.toFixed(0)} B / ${f.socketBytes.toFixed(0)} B`,
      );
    }
    const http = sizes.map((s) => bySize.get(s)!.httpBytes);
    ctx.report(
      'bytes per edit, largest / smallest chart',
      `x${(Math.max(...http) / Math.min(...http)).toFixed(3)}`,
      'within x1.10',
    );
    for (const size of sizes) {
      ctx.report(`${size} states: remote edit Node -> Node p50 / p95 / p99`, three(bySize.get(size)!.remote));
      ctx.report(`${size} states: the same with the old append body, just before`, three(oldBySize.get(size)!));
    }
    for (const size of sizes) {
      const f = bySize.get(size)!;
      ctx.report(
        `${size} states: sent ahead, A sends -> B has it (before durable) p50 / p95 / p99`,
        `${three(f.ahead)} (${f.aheadSeen} of ${EDITS} seen ahead)`,
      );
    }
    const floor = await durableCommitFloor(backend.pool);
    ctx.report('floor: one durable PostgreSQL commit of one small row p50 / p95 / p99', three(floor));
    const small = bySize.get(10)!.remote;
    const large = bySize.get(1000)!.remote;
    ctx.report('remote edit p50, 1,000 states / 10 states', `x${(large.p50 / small.p50).toFixed(2)}`, 'within x1.5');

    // Where a remote edit's time goes, its parts interleaved round by round.
    const parts = await measureBreakdown({
      pool: backend.pool,
      adminDatabaseUrl: backend.adminDatabaseUrl,
      a: a.client,
      b: b.client,
      portA,
      portB,
      machineId: machineBySize.get(10)!,
      appendTimer,
      rounds: EDITS,
      warmup: WARMUP,
    });
    ctx.section(
      `collab protocol: where a remote edit goes (10 states; parts interleaved; load average ${loadAverage()})`,
    );
    ctx.report('remote edit A -> B p50 / p95 / p99', three(parts.remote));
    ctx.report("A's commit answered (supabase-js rpc round trip)", three(parts.committed));
    ctx.report('append at the server (gateway request to answer)', three(parts.appendAtServer));
    ctx.report(
      'supabase-js rpc of a read-only SQL function (HTTP, JWT, REST, one PG round trip)',
      three(parts.rpcFloor),
    );
    ctx.report('the append sent straight to PostgreSQL as A (one round trip, commit): answered', three(parts.direct));
    ctx.report('the append sent straight to PostgreSQL as A: its broadcast at B', three(parts.directAtB));
    ctx.report('one durable commit of a small row', three(parts.durable));
    ctx.report('a broadcast A -> B over the socket (no database)', three(parts.socket));
    ctx.report(
      'CPU per remote edit: this process (A, B, backend) / PostgreSQL',
      `${ms(parts.cpu.node)} / ${ms(parts.cpu.postgres)}`,
    );
    ctx.report(
      'what HTTP, the gateway and REST add on the way to B (remote edit - direct append at B), p50',
      ms(parts.remote.p50 - parts.directAtB.p50),
    );
    ctx.report(
      "the same client's rpc: commit_machine_ops answered / a trivial SQL function (select 100) answered, p50",
      `${ms(parts.committed.p50)} / ${ms(parts.rpcFloor.p50)} (difference ${ms(parts.committed.p50 - parts.rpcFloor.p50)})`,
    );

    // The append inside PostgreSQL, the old body against the new, same inputs.
    const sessionA = (await a.client.auth.getSession()).data.session;
    if (!sessionA) throw new Error('append in PostgreSQL: A has no session');
    const inPg = await appendInPostgres({
      adminDatabaseUrl: backend.adminDatabaseUrl,
      claims: JSON.parse(Buffer.from(sessionA.access_token.split('.')[1]!, 'base64url').toString('utf8')) as object,
      machineId: machineBySize.get(10)!,
      rounds: EDITS * 3,
      warmup: WARMUP,
    });
    ctx.section(
      `collab protocol: the append inside PostgreSQL, old body against new (one op, 10 states, alternating; load average ${loadAverage()})`,
    );
    ctx.report('append inside PostgreSQL, old body (20261124000400) p50 / p95 / p99', three(inPg.old));
    ctx.report('append inside PostgreSQL, new body (20261127000300) p50 / p95 / p99', three(inPg.new));
    ctx.report('new / old, p50', `x${(inPg.new.p50 / inPg.old.p50).toFixed(2)}`);
    ctx.report(
      'append inside PostgreSQL p50 / one durable commit p50 (interleaved above): old / new',
      `x${(inPg.old.p50 / parts.durable.p50).toFixed(2)} / x${(inPg.new.p50 / parts.durable.p50).toFixed(2)}`,
    );
    ctx.report(
      "A's commit answered - trivial rpc, p50, against the new append inside PostgreSQL + one durable commit, p50",
      `${ms(parts.committed.p50 - parts.rpcFloor.p50)} against ${ms(inPg.new.p50 + parts.durable.p50)}`,
    );

    // 4. Loading a machine with 100,000 ops.
    const big = await within(
      STEP_MS,
      '100k part: creating the machine',
      portA.createMachine({ projectId, name: 'bench log', definition: definitionWith(10) }),
    );
    if (!big.ok) throw new Error(big.error.message);
    const loaded0 = await within(STEP_MS, '100k part: the first load', portA.loadMachine(big.value.id));
    if (!loaded0.ok) throw new Error(loaded0.error.message);
    const head0 = loaded0.value.tail.at(-1)?.seq ?? loaded0.value.version;
    const firstState = Object.keys(loaded0.value.definition.states).find((id) => id !== loaded0.value.definition.root)!;
    await within(
      LONG_STEP_MS,
      '100k part: inserting the log',
      backend.pool.query(
        `insert into public.machine_ops (machine_id, seq, author, client_id, batch_id, op)
       select $1, $2::bigint + g, $3, 'bench-log', gen_random_uuid(),
              case when g % 100 = 0
                   then jsonb_build_object('type', 'state.add', 'id', 's_log_' || g, 'parent', $4::text, 'key', 'k' || (g % 1000), 'stateType', 'atomic', 'index', null)
                   else jsonb_build_object('type', 'state.update', 'id', $5::text, 'changes', jsonb_build_object('description', 'edit ' || g)) end
         from generate_series(1, $6::int) g`,
        [big.value.id, head0, a.id, loaded0.value.definition.root, firstState, LOG_OPS],
      ),
    );
    // A log grown by appends has statistics (autovacuum); one bulk insert needs them taken.
    await within(STEP_MS, '100k part: analyze', backend.pool.query('analyze public.machine_ops'));
    const fold = (
      d: MachineDefinition,
      v: number,
      tail: Parameters<typeof receive<MachineDefinition, Op>>[2],
    ): DocState<MachineDefinition, Op> => receive(chartroomModel, createDoc<MachineDefinition, Op>(d, v), tail).state;
    const s0 = now();
    const whole = await within(LONG_STEP_MS, '100k part: reading the whole log', portB.opsSince(big.value.id, 0));
    if (!whole.ok) throw new Error(whole.error.message);
    fold(
      loaded0.value.definition,
      loaded0.value.version,
      whole.value.filter((e) => e.seq > loaded0.value.version),
    );
    const noCheckpoint = now() - s0;
    const c0 = now();
    const asked = await within(
      LONG_STEP_MS,
      '100k part: checkpoint-machine',
      a.client.functions.invoke('checkpoint-machine', { body: { machineId: big.value.id } }),
    );
    if (asked.error) throw new Error(`checkpoint failed: ${String(asked.error)}`);
    const checkpointMs = now() - c0;
    // A realistic tail after the checkpoint: 80 ops, short of the 100 that make the next checkpoint due.
    for (let i = 0; i < 4; i++)
      await within(
        STEP_MS,
        '100k part: an append after the checkpoint',
        portA.commitOps({
          machineId: big.value.id,
          clientId: 'bench-a',
          batchId: randomUUID(),
          ops: Array.from({ length: 20 }, (_, j) => ({
            type: 'state.update',
            id: firstState,
            changes: { description: `tail ${i}.${j}` },
          })),
        }),
      );
    const loads: number[] = [];
    let tailLength = 0;
    for (let i = 0; i < 20; i++) {
      const t0 = now();
      const loaded = await within(STEP_MS, `100k part: load ${i + 1}`, portB.loadMachine(big.value.id));
      if (!loaded.ok) throw new Error(loaded.error.message);
      fold(loaded.value.definition, loaded.value.version, loaded.value.tail);
      loads.push(now() - t0);
      tailLength = loaded.value.tail.length;
    }
    ctx.section(`collab protocol: a machine with ${LOG_OPS.toLocaleString('en')} ops in its log`);
    ctx.report('checkpoint-machine: replay the log and save', ms(checkpointMs));
    ctx.report(
      `load = checkpoint + tail (${tailLength} ops), replayed: p50 / p95 / p99`,
      three(summarize(loads)),
      'p50 < 300 ms',
    );
    ctx.report('without a checkpoint: read and replay the whole log', ms(noCheckpoint));

    // 5. Yjs over Hocuspocus, the same edit.
    const yjs: YjsFigures = await within(
      STEP_MS,
      'Hocuspocus in memory',
      measureYjs({ durable: false, pool: backend.pool, count: EDITS, warmup: WARMUP }),
    );
    const yjsDurable: YjsFigures = await within(
      STEP_MS,
      'Hocuspocus durable',
      measureYjs({
        durable: true,
        pool: backend.pool,
        count: EDITS,
        warmup: WARMUP,
      }),
    );
    ctx.section('collab protocol vs Yjs over Hocuspocus (same edit: one key set; Chartroom figures as ratios)');
    ctx.report('Hocuspocus in memory: remote edit p50 / p95 / p99', three(yjs.remote));
    ctx.report('Hocuspocus durable (store every change): remote edit', three(yjsDurable.remote));
    if (yjsDurable.stored) ctx.report('Hocuspocus durable: edit -> stored in PostgreSQL', three(yjsDurable.stored));
    ctx.report('Hocuspocus bytes A sends per edit', `${yjs.bytesPerEdit.toFixed(0)} B`);
    ctx.report(
      'Chartroom remote edit p50 (10 states) / Hocuspocus in memory',
      `x${(small.p50 / yjs.remote.p50).toFixed(2)}`,
    );
    ctx.report(
      'Chartroom remote edit p50 (10 states) / Hocuspocus durable',
      `x${(small.p50 / yjsDurable.remote.p50).toFixed(2)}`,
      'x1.0 or less',
    );
    const aheadSmall = bySize.get(10)!.ahead;
    ctx.report(
      'Chartroom sent ahead p50 (10 states, before durable) / Hocuspocus in memory',
      `x${(aheadSmall.p50 / yjs.remote.p50).toFixed(2)}`,
      'x1.0 or less',
    );
    ctx.report(
      'Chartroom remote edit p50 (10 states) / one durable commit p50',
      `x${(small.p50 / floor.p50).toFixed(2)}`,
    );
    if (yjsDurable.stored)
      ctx.report(
        'Chartroom remote edit p50 (durable on delivery) / Hocuspocus stored p50',
        `x${(small.p50 / yjsDurable.stored.p50).toFixed(2)}`,
      );
    ctx.report(
      'Chartroom remote edit p50 (1,000 states) / Hocuspocus durable',
      `x${(large.p50 / yjsDurable.remote.p50).toFixed(2)}`,
    );
  } catch (error) {
    // Said at once: stopping the backend below must not hide why the section stopped.
    process.stderr.write(`collab-protocol stopped: ${error instanceof Error ? error.message : String(error)}\n`);
    throw error;
  } finally {
    await within(
      STEP_MS,
      'leaving the channels',
      Promise.all([a.client.removeAllChannels(), b.client.removeAllChannels()]),
    );
    await within(STEP_MS, 'stopping the backend', backend.cleanup());
  }
}

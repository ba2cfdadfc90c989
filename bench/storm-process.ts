import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { loopLag, summarize, type LoopLag, type requestTimer, type Summary } from './lib.ts';
import { createMachinesAdapter } from '../src/adapters/supabase/machines.ts';
import { definitionWith, person } from './sections/collab.ts';
import { stormFigures, wallMs, type ShardRecords, type StormFigures } from './storm.ts';

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** What the backend's process and the whole machine did while the storm's edits ran. */
export interface StormLoad {
  /** Editors' processes the storm ran in. */
  processes: number;
  /** CPU time of the storm's editors' processes together, in ms, over the edits. */
  clientsCpuMs: number;
  /** The same, each process's. */
  clientsCpuMsEach: number[];
  /** CPU time of this process (the backend: HTTP, REST, realtime, function workers), in ms. */
  backendCpuMs: number;
  /** CPU time of the backend's PostgreSQL (postmaster and every backend), in ms. */
  postgresCpuMs: number;
  /** Busy time of every core together (everything on the machine, PostgreSQL included), in ms. */
  machineBusyMs: number;
  /** Wall time of the edits, in ms. */
  wallMs: number;
  /** Event-loop delay of the editors' process (the worst one's) and of the backend's. */
  clientsLag: LoopLag;
  backendLag: LoopLag;
  /** The backend's time per append, from request to answer (gateway log); empty without a timer. */
  appendAtServer: Summary;
  /** Mean time inside commit_machine_ops in PostgreSQL (pg_stat_user_functions; the commit's flush is after it). */
  appendInPostgresMs: number | null;
}

/** Calls and total ms of commit_machine_ops so far (track_functions must be on). */
async function functionTime(pool: pg.Pool): Promise<{ calls: number; ms: number }> {
  const r = await pool.query<{ calls: string; total: number }>(
    `select coalesce(sum(calls), 0) as calls, coalesce(sum(total_time), 0) as total
       from pg_stat_user_functions where funcname = 'commit_machine_ops'`,
  );
  return { calls: Number(r.rows[0]!.calls), ms: Number(r.rows[0]!.total) };
}

/** Fields of /proc/<pid>/stat after the command (Linux). */
function procStat(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The pid of the postmaster behind `pool` (Linux; null elsewhere). */
export async function postmasterOf(pool: pg.Pool): Promise<number | null> {
  const backendPid = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const postmaster = Number(procStat(backendPid)?.[1] ?? Number.NaN);
  return Number.isNaN(postmaster) ? null : postmaster;
}

/** CPU ms used so far by a PostgreSQL postmaster and its live children (Linux; 0 elsewhere). */
export function postgresCpuMs(postmaster: number | null): number {
  if (postmaster === null) return 0;
  const hz = 100;
  let ticks = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    const f = procStat(Number(pid));
    // After the command: state, ppid, ... utime is field 14 of the line, index 11 here.
    if (f && (Number(pid) === postmaster || Number(f[1]) === postmaster)) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks / hz) * 1000;
}

/** Busy and total jiffies of all cores (Linux /proc/stat; zeros elsewhere). */
function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (line[3] ?? 0) + (line[4] ?? 0);
    const total = line.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** A bench script (relative to bench/) in a child process with `options` as CHARTROOM_STORM, talking over IPC. */
function forkBench(script: string, options: object) {
  return fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    // BENCH_STORM_CPU_PROF=<dir>: each child process writes a V8 CPU profile there (node --cpu-prof).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_STORM_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_STORM_CPU_PROF}`] : []),
    ],
    env: { ...process.env, CHARTROOM_STORM: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** A message between the storm's process and a shard: the step it answers or starts, and its data. */
export type ShardMessage = { step: string; error?: string } & Record<string, unknown>;

/**
 * One child process per shard, each running bench/storm-child.ts with its options (as
 * CHARTROOM_STORM), talking over IPC in steps: `gather(step)` waits for every shard's
 * message of that step (in shard order; a shard's error or exit rejects it), `tell`
 * sends one message to every shard.
 */
export function forkShards(options: readonly object[]) {
  const children = options.map((o) => forkBench('./storm-child.ts', o));
  // Each shard's messages not yet gathered, and the failure that ends the storm.
  const inboxes = children.map(() => [] as ShardMessage[]);
  let failure: Error | null = null;
  const wake = new Set<() => void>();
  const notify = () => {
    for (const w of [...wake]) w();
  };
  children.forEach((child, i) => {
    child.on('message', (message: ShardMessage) => {
      if (message.step === 'error') failure ??= new Error(`storm shard ${i} failed: ${message.error}`);
      else inboxes[i]!.push(message);
      notify();
    });
    child.on('exit', (code) => {
      if (code !== 0) failure ??= new Error(`storm shard ${i} exited (${code})`);
      notify();
    });
  });
  const take = (i: number, step: string) => {
    const at = inboxes[i]!.findIndex((m) => m.step === step);
    return at < 0 ? null : inboxes[i]!.splice(at, 1)[0]!;
  };
  return {
    count: children.length,
    gather(step: string): Promise<ShardMessage[]> {
      return new Promise((resolve, reject) => {
        const got: (ShardMessage | null)[] = children.map(() => null);
        const check = () => {
          got.forEach((m, i) => (got[i] = m ?? take(i, step)));
          if (got.every((m) => m !== null)) {
            wake.delete(check);
            resolve(got);
          } else if (failure) {
            wake.delete(check);
            reject(failure);
          }
        };
        wake.add(check);
        check();
      });
    },
    tell(message: ShardMessage): void {
      for (const child of children) if (child.connected) child.send(message);
    },
  };
}

/** `total` split into `parts` sizes as even as they go, the larger first. */
export const split = (total: number, parts: number): number[] =>
  Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));

const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/**
 * The storm with its editors in `processes` child processes (bench/storm-child.ts, each a
 * shard of runStormShard), so the editors' clients do not share the backend's event loop
 * (on this machine they still share its cores), nor, with more than one, one event loop
 * among themselves. This process signs up the owner, makes the machine and its members,
 * and starts every shard at the same moment.
 */
export async function runStormInChild(options: {
  url: string;
  anonKey: string;
  editors: number;
  seconds: number;
  /** Edits each editor makes a second (default 1). */
  rate?: number;
  /** Editors' processes (default 1). */
  processes?: number;
  /** The backend's pool (a superuser's), to find its PostgreSQL's processes and time the append function. */
  pool?: pg.Pool;
  /** Fed by the backend's request log: times each append at the server. */
  appendTimer?: ReturnType<typeof requestTimer>;
}): Promise<{ figures: StormFigures; load: StormLoad }> {
  const { pool, appendTimer, url, anonKey, editors } = options;
  if (pool) {
    await pool.query(`alter system set track_functions = 'all'`);
    await pool.query('select pg_reload_conf()');
  }
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const postmaster = pool ? await postmasterOf(pool) : null;

  const owner = await person(url, anonKey, 'storm-owner');
  const project = await owner.client.from('projects').insert({ name: 'storm' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  const ownerPort = createMachinesAdapter(owner.client);
  const created = await ownerPort.createMachine({
    projectId: project.data.id,
    name: 'storm',
    definition: definitionWith(editors),
  });
  if (!created.ok) throw new Error(created.error.message);
  const machineId = created.value.id;
  const opened = await ownerPort.loadMachine(machineId);
  if (!opened.ok) throw new Error(opened.error.message);
  const member = async (userIds: string[], role: 'editor' | 'viewer') => {
    const added = await owner.client
      .from('project_members')
      .insert(userIds.map((id) => ({ project_id: project.data.id, user_id: id, role, joined_via: 'added' as const })));
    if (added.error) throw new Error(added.error.message);
  };
  const observer = await observeInChild({ url, anonKey });
  await member([observer.userId], 'viewer');
  await observer.follow(machineId);

  const sizes = split(editors, Math.max(1, Math.min(options.processes ?? 1, editors)));
  const shards = forkShards(
    sizes.map((size, i) => ({
      kind: 'chartroom',
      url,
      anonKey,
      editors: size,
      first: sizes.slice(0, i).reduce((a, b) => a + b, 0),
      total: editors,
      seconds: options.seconds,
      rate: options.rate,
    })),
  );
  await member(
    (await shards.gather('joined')).flatMap((m) => m.userIds as string[]),
    'editor',
  );
  shards.tell({ step: 'machine', machineId });
  await shards.gather('ready');
  // Every shard starts at the same moment; the load is measured from it to the last shard's edits all appended.
  const startAt = wallMs() + 200;
  shards.tell({ step: 'go', startAt });
  await sleep(Math.max(0, startAt - wallMs()));
  lag.enable();
  appendTimer?.start();
  const fn0 = pool ? await functionTime(pool) : { calls: 0, ms: 0 };
  const cpu0 = process.cpuUsage();
  const ticks0 = machineTicks();
  const wall0 = now();
  const pg0 = postgresCpuMs(postmaster);
  const drained = await shards.gather('drained');
  const cpu = process.cpuUsage(cpu0);
  const ticks = machineTicks();
  const wallMs_ = now() - wall0;
  const pgMs = postgresCpuMs(postmaster) - pg0;
  lag.disable();
  const atServer = appendTimer?.stop() ?? [];
  shards.tell({ step: 'settle' });
  const records = (await shards.gather('records')).map((m) => m.records as ShardRecords);
  let inPostgres: number | null = null;
  if (pool) {
    await sleep(1200); // backends flush their statistics at most once a second
    const fn1 = await functionTime(pool);
    inPostgres = fn1.calls > fn0.calls ? (fn1.ms - fn0.ms) / (fn1.calls - fn0.calls) : null;
  }
  const log = await ownerPort.opsSince(machineId, opened.value.version);
  if (!log.ok) throw new Error(log.error.message);
  const figures = stormFigures(records, log.value, await observer.finish());
  await owner.client.removeAllChannels();
  const share = ticks.total > ticks0.total ? (ticks.busy - ticks0.busy) / (ticks.total - ticks0.total) : 0;
  const cpuEach = drained.map((m) => m.cpuMs as number);
  const lags = drained.map((m) => m.lag as LoopLag);
  return {
    figures,
    load: {
      processes: sizes.length,
      clientsCpuMs: cpuEach.reduce((a, b) => a + b, 0),
      clientsCpuMsEach: cpuEach,
      backendCpuMs: (cpu.user + cpu.system) / 1000,
      postgresCpuMs: pgMs,
      machineBusyMs: share * cpus().length * wallMs_,
      wallMs: wallMs_,
      clientsLag: lags.reduce((w, l) => (l.p99 > w.p99 ? l : w)),
      backendLag: loopLag(lag),
      appendAtServer: summarize(atServer),
      appendInPostgresMs: inPostgres,
    },
  };
}

/** The storm's dedicated observer (bench/storm-observer.ts) in its own process. */
export interface StormObserver {
  userId: string;
  /** Follows the machine (the observer must be a member already); resolves once live. */
  follow(machineId: string): Promise<void>;
  /** Stops and answers when each batch reached the observer (wall-clock ms). */
  finish(): Promise<Map<string, number>>;
}

export async function observeInChild(options: { url: string; anonKey: string }): Promise<StormObserver> {
  const child = forkBench('./storm-observer.ts', options);
  type Message = { userId?: string; ready?: true; arrivals?: [string, number][] };
  const next = <K extends keyof Message>(key: K) =>
    new Promise<NonNullable<Message[K]>>((resolve, reject) => {
      const on = (message: Message) => {
        if (message[key] === undefined) return;
        child.off('message', on);
        resolve(message[key]);
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`storm observer exited (${code})`)));
    });
  const userId = await next('userId');
  return {
    userId,
    async follow(machineId) {
      const ready = next('ready');
      child.send({ machineId });
      await ready;
    },
    async finish() {
      const arrivals = next('arrivals');
      child.send({ stop: true });
      return new Map(await arrivals);
    },
  };
}

import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { loopLag, summarize, type LoopLag, type requestTimer, type Summary } from './lib.ts';
import type { StormFigures } from './storm.ts';

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** What the backend's process and the whole machine did while the storm's edits ran. */
export interface StormLoad {
  /** CPU time of the storm's child process (its 50 clients), in ms, over the edits. */
  clientsCpuMs: number;
  /** CPU time of this process (the backend: HTTP, REST, realtime, function workers), in ms. */
  backendCpuMs: number;
  /** CPU time of the backend's PostgreSQL (postmaster and every backend), in ms. */
  postgresCpuMs: number;
  /** Busy time of every core together (everything on the machine, PostgreSQL included), in ms. */
  machineBusyMs: number;
  /** Wall time of the edits, in ms. */
  wallMs: number;
  /** Event-loop delay of the editors' process and of the backend's. */
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

/** CPU ms used so far by a PostgreSQL postmaster and its children (Linux; 0 elsewhere). */
function postgresCpuMs(postmaster: number | null): number {
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

/**
 * runStorm in a child process (bench/storm-child.ts), so the editors' clients do not
 * share the backend's event loop (on this machine they still share its cores). The
 * child signs up its own owner and project on the backend at `url`.
 */
export async function runStormInChild(options: {
  url: string;
  anonKey: string;
  editors: number;
  seconds: number;
  /** Edits each editor makes a second (default 1). */
  rate?: number;
  /** The backend's pool (a superuser's), to find its PostgreSQL's processes and time the append function. */
  pool?: pg.Pool;
  /** Fed by the backend's request log: times each append at the server. */
  appendTimer?: ReturnType<typeof requestTimer>;
}): Promise<{ figures: StormFigures; load: StormLoad }> {
  const { pool, appendTimer, ...childOptions } = options;
  if (pool) {
    await pool.query(`alter system set track_functions = 'all'`);
    await pool.query('select pg_reload_conf()');
  }
  const lag = monitorEventLoopDelay({ resolution: 10 });
  let fn0 = { calls: 0, ms: 0 };
  let postmaster: number | null = null;
  if (pool) {
    const backendPid = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    postmaster = Number(procStat(backendPid)?.[1] ?? Number.NaN);
    if (Number.isNaN(postmaster)) postmaster = null;
  }
  const child = fork(fileURLToPath(new URL('./storm-child.ts', import.meta.url)), [], {
    // BENCH_STORM_CPU_PROF=<dir>: each editors' process writes a V8 CPU profile there (node --cpu-prof).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_STORM_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_STORM_CPU_PROF}`] : []),
    ],
    env: { ...process.env, CHARTROOM_STORM: JSON.stringify(childOptions) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let cpu0 = process.cpuUsage();
  let ticks0 = machineTicks();
  let wall0 = now();
  let pg0 = 0;
  let answered = false;
  return new Promise((resolve, reject) => {
    type Message = { started?: true; figures?: StormFigures; cpuMs?: number; lag?: LoopLag; error?: string };
    const handle = async (message: Message): Promise<void> => {
      if (message.started) {
        lag.enable();
        appendTimer?.start();
        if (pool) fn0 = await functionTime(pool);
        cpu0 = process.cpuUsage();
        ticks0 = machineTicks();
        wall0 = now();
        pg0 = postgresCpuMs(postmaster);
        return;
      }
      answered = true;
      if (message.error !== undefined) return reject(new Error(`storm child failed: ${message.error}`));
      const cpu = process.cpuUsage(cpu0);
      const ticks = machineTicks();
      const wallMs = now() - wall0;
      const cores = cpus().length;
      lag.disable();
      const atServer = appendTimer?.stop() ?? [];
      let inPostgres: number | null = null;
      if (pool) {
        await new Promise((r) => setTimeout(r, 1200)); // backends flush their statistics at most once a second
        const fn1 = await functionTime(pool);
        inPostgres = fn1.calls > fn0.calls ? (fn1.ms - fn0.ms) / (fn1.calls - fn0.calls) : null;
      }
      const share = ticks.total > ticks0.total ? (ticks.busy - ticks0.busy) / (ticks.total - ticks0.total) : 0;
      resolve({
        figures: message.figures!,
        load: {
          clientsCpuMs: message.cpuMs ?? 0,
          backendCpuMs: (cpu.user + cpu.system) / 1000,
          postgresCpuMs: postgresCpuMs(postmaster) - pg0,
          machineBusyMs: share * cores * wallMs,
          wallMs,
          clientsLag: message.lag ?? { p50: Number.NaN, p99: Number.NaN, max: Number.NaN },
          backendLag: loopLag(lag),
          appendAtServer: summarize(atServer),
          appendInPostgresMs: inPostgres,
        },
      });
    };
    child.on('message', (message: Message) => void handle(message).catch(reject));
    child.on('exit', (code) => answered || reject(new Error(`storm child exited (${code}) without figures`)));
  });
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
  const child = fork(fileURLToPath(new URL('./storm-observer.ts', import.meta.url)), [], {
    // BENCH_STORM_CPU_PROF=<dir>: each editors' process writes a V8 CPU profile there (node --cpu-prof).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_STORM_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_STORM_CPU_PROF}`] : []),
    ],
    env: { ...process.env, CHARTROOM_STORM: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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

import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
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
  /** The backend's pool, to find its PostgreSQL's processes. */
  pool?: pg.Pool;
}): Promise<{ figures: StormFigures; load: StormLoad }> {
  const { pool, ...childOptions } = options;
  let postmaster: number | null = null;
  if (pool) {
    const backendPid = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    postmaster = Number(procStat(backendPid)?.[1] ?? Number.NaN);
    if (Number.isNaN(postmaster)) postmaster = null;
  }
  const child = fork(fileURLToPath(new URL('./storm-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CHARTROOM_STORM: JSON.stringify(childOptions) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let cpu0 = process.cpuUsage();
  let ticks0 = machineTicks();
  let wall0 = now();
  let pg0 = 0;
  return new Promise((resolve, reject) => {
    child.on('message', (message: { started?: true; figures?: StormFigures; cpuMs?: number; error?: string }) => {
      if (message.started) {
        cpu0 = process.cpuUsage();
        ticks0 = machineTicks();
        wall0 = now();
        pg0 = postgresCpuMs(postmaster);
        return;
      }
      if (message.error !== undefined) return reject(new Error(`storm child failed: ${message.error}`));
      const cpu = process.cpuUsage(cpu0);
      const ticks = machineTicks();
      const wallMs = now() - wall0;
      const cores = cpus().length;
      const share = ticks.total > ticks0.total ? (ticks.busy - ticks0.busy) / (ticks.total - ticks0.total) : 0;
      resolve({
        figures: message.figures!,
        load: {
          clientsCpuMs: message.cpuMs ?? 0,
          backendCpuMs: (cpu.user + cpu.system) / 1000,
          postgresCpuMs: postgresCpuMs(postmaster) - pg0,
          machineBusyMs: share * cores * wallMs,
          wallMs,
        },
      });
    });
    child.on('exit', (code) => reject(new Error(`storm child exited (${code}) without figures`)));
  });
}

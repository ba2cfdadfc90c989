import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchBackend } from '../backend.ts';
import type { BenchContext } from '../lib.ts';
import { postgresCpuMs, postmasterOf } from '../storm-process.ts';
import { definitionWith, person, PERSON_PASSWORD } from './collab.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';

/**
 * CPU per append on the server's side alone, without the realtime fan-out the sustained
 * section adds: one-op appends to one machine made by supabase-js in a child process
 * (bench/append-cpu-client.ts), one lane and then four in parallel (appends to one
 * machine wait for each other's row lock), timing the backend's process (this one) and
 * its PostgreSQL. Each round is a fresh backend; the first steps of a backend run warm.
 * BENCH_APPEND_CPU_COUNT (default 2000) appends a step.
 */

const ROUNDS = 2;

/** One editor's appends from a child process; the CPU used by this process and PostgreSQL meanwhile. */
async function appends(options: object, postmaster: number | null): Promise<{ backendMs: number; postgresMs: number }> {
  const child = fork(fileURLToPath(new URL('../append-cpu-client.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CHARTROOM_APPEND_CPU: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<{ step: string; error?: string }>((resolve, reject) => {
      child.once('message', (m: { step: string; error?: string }) => resolve(m));
      child.once('exit', (code) => reject(new Error(`append-cpu client exited (${String(code)})`)));
    });
  const ready = await next();
  if (ready.step !== 'ready') throw new Error(`append-cpu client: ${ready.error ?? ready.step}`);
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpuMs(postmaster);
  child.send({ step: 'go' });
  const done = await next();
  const cpu = process.cpuUsage(cpu0);
  const postgresMs = postgresCpuMs(postmaster) - pg0;
  if (done.step !== 'done') throw new Error(`append-cpu client: ${done.error ?? done.step}`);
  return { backendMs: (cpu.user + cpu.system) / 1000, postgresMs };
}

export async function run(ctx: BenchContext): Promise<void> {
  const count = Number(process.env.BENCH_APPEND_CPU_COUNT ?? 2000);
  ctx.section(`CPU per append, backend / PostgreSQL (one-op appends over REST, no subscribers, ${count} a step)`);
  for (let round = 1; round <= ROUNDS; round++) {
    const backend = await benchBackend();
    try {
      const editor = await person(backend.url, backend.anonKey, 'append-cpu');
      const email = (await editor.client.auth.getUser()).data.user?.email ?? '';
      const project = await editor.client.from('projects').insert({ name: 'append-cpu' }).select('id').single();
      if (project.error) throw new Error(project.error.message);
      const machine = await createMachinesAdapter(editor.client).createMachine({
        projectId: project.data.id,
        name: 'append-cpu',
        definition: definitionWith(1),
      });
      if (!machine.ok) throw new Error(machine.error.message);
      const postmaster = await postmasterOf(backend.pool);
      const options = { url: backend.url, anonKey: backend.anonKey, email, password: PERSON_PASSWORD };
      // Warm up (JIT, prepared statements, the pool's connections), then measure.
      await appends({ ...options, machineId: machine.value.id, count: 300, lanes: 4 }, postmaster);
      for (const lanes of [1, 4]) {
        const used = await appends({ ...options, machineId: machine.value.id, count, lanes }, postmaster);
        ctx.report(
          `round ${round}, ${lanes} lane(s): backend / PostgreSQL CPU per append`,
          `${(used.backendMs / count).toFixed(3)} ms / ${(used.postgresMs / count).toFixed(3)} ms`,
        );
      }
    } finally {
      await backend.cleanup();
    }
  }
}

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loopLag, type LoopLag } from './lib.ts';
import { person } from './sections/collab.ts';
import { observeInChild } from './storm-process.ts';
import { runStorm, type StormFigures } from './storm.ts';

/**
 * The storm's editors in a process of their own (forked by runStormInChild), so their
 * supabase-js clients, sockets and collab core do not share the backend's event loop:
 * the figures then measure the server, not 50 clients queued behind it. Reads its
 * options from CHARTROOM_STORM (JSON), answers with the figures over IPC.
 */

interface Options {
  url: string;
  anonKey: string;
  editors: number;
  seconds: number;
  rate?: number;
}

const options = JSON.parse(process.env.CHARTROOM_STORM ?? '{}') as Options;
const reply = (message: { figures: StormFigures; cpuMs: number; lag: LoopLag } | { error: string }) =>
  new Promise<void>((resolve) => process.send!(message, () => resolve()));

try {
  const owner = await person(options.url, options.anonKey, 'storm-owner');
  const project = await owner.client.from('projects').insert({ name: 'storm' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  let cpuFrom = process.cpuUsage();
  // How late this process's event loop runs its callbacks: 50 clients share it.
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const observer = await observeInChild({ url: options.url, anonKey: options.anonKey });
  const figures = await runStorm({
    ...options,
    observer,
    owner,
    projectId: project.data.id,
    // Sign-ups (bcrypt on the server) are set-up: the clients' CPU counts from the first edit.
    onStart: () => {
      cpuFrom = process.cpuUsage();
      lag.enable();
      process.send!({ started: true });
    },
  });
  const used = process.cpuUsage(cpuFrom);
  lag.disable();
  await owner.client.removeAllChannels();
  await reply({ figures, cpuMs: (used.user + used.system) / 1000, lag: loopLag(lag) });
} catch (error) {
  await reply({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
process.exit(0);

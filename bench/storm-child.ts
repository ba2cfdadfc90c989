import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runYjsShard } from './hocuspocus.ts';
import { loopLag } from './lib.ts';
import type { ShardMessage } from './storm-process.ts';
import { runStormShard } from './storm.ts';

/**
 * One shard of a storm's editors in a process of its own (forked by forkShards in
 * bench/storm-process.ts), so their clients do not share the backend's event loop, nor,
 * with several shards, one event loop among all editors: Chartroom's editors
 * (runStormShard: supabase-js, the collab core) or Hocuspocus's (runYjsShard). Reads its
 * options from CHARTROOM_STORM (JSON), meets the other shards in steps over IPC, and
 * answers with its CPU time and event-loop delay from the first edit to its last edit
 * appended ('drained'), then its records.
 */

type Options = { kind: 'chartroom' | 'yjs' } & Parameters<typeof runStormShard>[0] & Parameters<typeof runYjsShard>[0];

const options = JSON.parse(process.env.CHARTROOM_STORM ?? '{}') as Options;
const send = (message: ShardMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

// The storm's messages to this shard, by step, as they come.
const inbox: ShardMessage[] = [];
const waiting = new Map<string, (message: ShardMessage) => void>();
process.on('message', (message: ShardMessage) => {
  const waiter = waiting.get(message.step);
  if (waiter) {
    waiting.delete(message.step);
    waiter(message);
  } else inbox.push(message);
});
/** Sends this shard's step and waits for the storm's answer (the step named `answer`). */
async function exchange(message: ShardMessage, answer: string): Promise<ShardMessage> {
  const early = inbox.findIndex((m) => m.step === answer);
  const got =
    early >= 0
      ? Promise.resolve(inbox.splice(early, 1)[0]!)
      : new Promise<ShardMessage>((resolve) => waiting.set(answer, resolve));
  await send(message);
  return got;
}

// CPU and event-loop delay from the first edit to this shard's last edit appended.
let cpuFrom = process.cpuUsage();
const lag = monitorEventLoopDelay({ resolution: 10 });
const onStart = () => {
  cpuFrom = process.cpuUsage();
  lag.enable();
};
const drainedStep = (extra: Record<string, unknown>): ShardMessage => {
  const used = process.cpuUsage(cpuFrom);
  lag.disable();
  return { step: 'drained', cpuMs: (used.user + used.system) / 1000, lag: loopLag(lag), ...extra };
};
const ready = async () => (await exchange({ step: 'ready' }, 'go')).startAt as number;

try {
  const records =
    options.kind === 'yjs'
      ? await runYjsShard({
          ...options,
          onStart,
          link: {
            ready,
            drained: async (made) => (await exchange(drainedStep({ made }), 'settle')).all as number[],
          },
        })
      : await runStormShard({
          ...options,
          onStart,
          link: {
            joined: async (userIds) => (await exchange({ step: 'joined', userIds }, 'machine')).machineId as string,
            ready,
            drained: async () => void (await exchange(drainedStep({}), 'settle')),
          },
        });
  await send({ step: 'records', records });
} catch (error) {
  await send({ step: 'error', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
process.exit(0);

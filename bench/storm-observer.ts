import { createMachinesAdapter } from '../src/adapters/supabase/machines.ts';
import { person } from './sections/collab.ts';

/**
 * One client that only follows the storm's machine, in a process of its own (forked by
 * bench/storm-child.ts through observeInChild): when each batch reaches it, as wall-clock
 * ms comparable across processes on this machine. Its delivery figure is the server's
 * (append, commit, broadcast, fan-out) without 49 other clients sharing the receiver's
 * event loop. Talks over IPC: sends { userId }, gets { machineId }, sends { ready },
 * gets { stop }, answers { arrivals: [batchId, ms][] }.
 */

type Message = { machineId?: string; stop?: true };
const wallMs = () => performance.timeOrigin + performance.now();
const options = JSON.parse(process.env.CHARTROOM_STORM ?? '{}') as { url: string; anonKey: string };
const me = await person(options.url, options.anonKey, 'storm-observer');
const arrivals = new Map<string, number>();
let unsubscribe: () => void = () => undefined;

process.on('message', (message: Message) => {
  if (message.machineId !== undefined) {
    const sub = createMachinesAdapter(me.client)
      .opEvents$(message.machineId)
      .subscribe((event) => {
        if (event.type === 'ops.subscribed') process.send!({ ready: true });
        if (event.type !== 'ops.received') return;
        const at = wallMs();
        for (const op of event.ops) if (!arrivals.has(op.batchId)) arrivals.set(op.batchId, at);
      });
    unsubscribe = () => sub.unsubscribe();
  }
  if (message.stop) {
    unsubscribe();
    process.send!({ arrivals: [...arrivals] }, () => process.exit(0));
  }
});
process.send!({ userId: me.id });

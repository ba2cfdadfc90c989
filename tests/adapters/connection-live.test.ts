import { afterAll, describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { createConnectionAdapter, openChannel, socketEvents } from '../../src/adapters/supabase/realtime.ts';
import { connectionLogic } from '../../src/app/room.ts';
import { person, record } from './room-fixtures.ts';

/**
 * The connection machine over the real supabase-js socket (the banner stuck on "Reconnecting…"): the
 * banner reads this actor, so it must follow the socket, not the device's online flag.
 * The device's network events come from a test EventTarget; everything else is real.
 */

const stops: (() => void)[] = [];
afterAll(() => {
  for (const stop of stops) stop();
});

async function liveConnection(tag: string) {
  const ada = await person(tag);
  const network = new EventTarget();
  const channel = record(openChannel(ada.client, { topic: `connection-test-${ada.id}` }).facts$);
  stops.push(channel.stop);
  await channel.waitFor((f) => f.type === 'status' && f.status === 'subscribed');
  const adapter = createConnectionAdapter(ada.client);
  const actor = createActor(connectionLogic({ ...adapter, socketEvents$: socketEvents(ada.client, network) })).start();
  stops.push(() => actor.stop());
  await waitFor(actor, (s) => s.hasTag('live'), { timeout: 10_000 });
  return { ada, network, actor };
}

describe('connection machine over the real socket', () => {
  it('is live again when the network comes back and the socket never dropped', async () => {
    const { network, actor } = await liveConnection('conn-back');
    network.dispatchEvent(new Event('offline'));
    await waitFor(actor, (s) => s.hasTag('offline'));
    network.dispatchEvent(new Event('online'));
    // The socket stayed open the whole time (as Chromium's offline emulation keeps it):
    // no socket.opened will come, so the machine must ask the socket itself.
    const back = await waitFor(actor, (s) => s.hasTag('live'), { timeout: 10_000 });
    expect(back.hasTag('down')).toBe(false);
    expect(back.context.reason).toBeNull();
  });

  it('"Retry now" ends the banner when the socket is in fact open', async () => {
    const { network, actor } = await liveConnection('conn-retry');
    network.dispatchEvent(new Event('offline'));
    await waitFor(actor, (s) => s.hasTag('offline'));
    actor.send({ type: 'connection.retry' });
    const back = await waitFor(actor, (s) => s.hasTag('live'), { timeout: 10_000 });
    expect(back.hasTag('down')).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineIn, projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { anonClient, backendInfo, type AnyClient } from '../setup/clients.ts';
import { RawSocket, until } from './realtime-helpers.ts';

/**
 * Simulation logs over realtime ("outsiders and anon get nothing, including
 * over realtime"). A member following a simulation's log through supabase-js gets every
 * event; an outsider's and anon's raw sockets, subscribed to every simulation event,
 * get only those of a public project. Each private event is sent before a public
 * marker, so once the marker arrives the private one would already have. The app follows
 * a log on the private broadcast channel `sim-log:<simulation>`, which members join and
 * outsiders and anon cannot.
 */

let t: Team;
let privateSim: string;
let publicSim: string;
const sockets: RawSocket[] = [];
const opened: AnyClient[] = [];

async function start(client: AnyClient, machine: string): Promise<string> {
  const r = await client.rpc('start_simulation', { p_machine: machine });
  if (r.error) throw new Error(r.error.message);
  return (r.data as { id: string }).id;
}

async function send(client: AnyClient, sim: string, type: string): Promise<void> {
  const r = await client.rpc('send_simulation_event', { p_simulation: sim, p_kind: 'event', p_type: type });
  if (r.error) throw new Error(r.error.message);
}

beforeAll(async () => {
  t = await team();
  privateSim = await start(t.owner.client, await machineIn(t, await projectFor(t, 'private'), 'secret'));
  publicSim = await start(t.owner.client, await machineIn(t, await projectFor(t, 'public'), 'open'));
});

afterAll(async () => {
  for (const s of sockets) s.close();
  for (const c of opened) await c.removeAllChannels();
});

/** A raw socket subscribed to all simulation_events inserts, as `token`'s bearer. */
async function rawFollower(token: string): Promise<RawSocket> {
  const socket = await RawSocket.open('1.0.0');
  sockets.push(socket);
  const reply = await socket.join('realtime:sim-spy', '1', {
    config: {
      broadcast: {},
      presence: {},
      private: false,
      postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'simulation_events' }],
    },
    access_token: token,
  });
  expect(reply.status).toBe('ok');
  await until(
    () => socket.messages().some((m) => m.event === 'system' && m.payload.status === 'ok'),
    10_000,
    'subscribed to PostgreSQL',
  );
  return socket;
}

const typesSeen = (socket: RawSocket) =>
  socket
    .messages()
    .filter((m) => m.event === 'postgres_changes')
    .map((m) => (m.payload.data as { record: { simulation_id: string; type: string } }).record)
    .map(
      (r) =>
        `${r.simulation_id === privateSim ? 'private' : r.simulation_id === publicSim ? 'public' : 'other'}:${r.type}`,
    );

describe('simulation events over realtime', () => {
  it('reach members, and never outsiders or anon, of a private project', async () => {
    const viewer = t.viewer.client;
    opened.push(viewer);
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      viewer
        .channel(`sim:${privateSim}`)
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'simulation_events', filter: `simulation_id=eq.${privateSim}` },
          (p) => {
            received.push((p.new as { type: string }).type);
          },
        )
        .subscribe((status, error) => {
          if ((status as string) === 'SUBSCRIBED') resolve();
          if ((status as string) === 'CHANNEL_ERROR') reject(error ?? new Error(status));
        });
    });
    const outsiderToken = (await t.outsider.client.auth.getSession()).data.session?.access_token ?? '';
    const outsider = await rawFollower(outsiderToken);
    const anon = await rawFollower(backendInfo().anonKey);

    await send(t.editor.client, privateSim, 'SECRET_1');
    await send(t.viewer.client, privateSim, 'SECRET_2');
    await send(t.owner.client, publicSim, 'MARKER');
    await until(() => received.length === 2, 10_000, 'the member to get both events');
    for (const socket of [outsider, anon])
      await until(() => typesSeen(socket).includes('public:MARKER'), 10_000, 'the public marker');

    expect(received).toEqual(['SECRET_1', 'SECRET_2']);
    expect(typesSeen(outsider)).toEqual(['public:MARKER']);
    expect(typesSeen(anon)).toEqual(['public:MARKER']);
  });

  it('broadcasts each stored event on the private sim-log channel, which only readers of the project join', async () => {
    const viewer = t.viewer.client;
    opened.push(viewer);
    const received: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      viewer
        .channel(`sim-log:${privateSim}`, { config: { private: true } })
        .on('broadcast', { event: 'entries' }, (m: { payload?: { entries?: unknown[] } }) => {
          received.push(...(m.payload?.entries ?? []));
        })
        .subscribe((status, error) => {
          if ((status as string) === 'SUBSCRIBED') resolve();
          if ((status as string) === 'CHANNEL_ERROR') reject(error ?? new Error(status));
        });
    });
    const outsiderToken = (await t.outsider.client.auth.getSession()).data.session?.access_token ?? '';
    const refusals: unknown[] = [];
    for (const [token, ref] of [
      [outsiderToken, 'o1'],
      [backendInfo().anonKey, 'a1'],
    ] as const) {
      const socket = await RawSocket.open('1.0.0');
      sockets.push(socket);
      const reply = await socket.join(`realtime:sim-log:${privateSim}`, ref, {
        config: { broadcast: {}, presence: {}, private: true },
        access_token: token,
      });
      refusals.push(reply.status);
    }
    expect(refusals).toEqual(['error', 'error']);

    await send(t.editor.client, privateSim, 'BROADCAST_1');
    await until(() => received.length === 1, 10_000, 'the broadcast entry');
    expect(received[0]).toMatchObject({ kind: 'event', type: 'BROADCAST_1', payload: {}, sender: t.editor.id });
    expect(typeof (received[0] as { seq: unknown }).seq).toBe('number');
  });

  it('streams a simulation started on a machine to whoever follows that machine', async () => {
    const guest = anonClient();
    expect((await guest.auth.signInAnonymously()).error).toBeNull();
    opened.push(guest);
    const publicMachine = (
      (await t.owner.client.from('simulations').select('machine_id').eq('id', publicSim).single()).data as {
        machine_id: string;
      }
    ).machine_id;
    const started: string[] = [];
    await new Promise<void>((resolve) => {
      guest
        .channel(`sims:${publicMachine}`)
        .on(
          'postgres_changes',
          { event: '*', schema: 'public', table: 'simulations', filter: `machine_id=eq.${publicMachine}` },
          (p) => {
            started.push((p.new as { id: string }).id);
          },
        )
        .subscribe((status) => {
          if ((status as string) === 'SUBSCRIBED') resolve();
        });
    });
    const next = await start(t.viewer.client, publicMachine);
    await until(() => started.includes(next), 10_000, 'the new simulation');
    expect(started).toContain(next);
  });
});

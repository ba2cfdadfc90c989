import type { SupabaseClient } from '@supabase/supabase-js';
import { firstValueFrom, filter, take, toArray } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSimulationsAdapter } from '../../src/adapters/supabase/simulations.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { SimulationPort } from '../../src/lib/ports/simulation.ts';
import { machineIn, projectFor, team, type Team } from './machines-fixtures.ts';

/**
 * The simulation adapter against the real backend through supabase-js: records in the
 * port's shape, the log read back in order, the live log stream, and refusals mapped
 * to the port's error codes by SQLSTATE.
 */

let t: Team;
let machine: string;
let owner: SimulationPort;
let viewer: SimulationPort;

const adapter = (client: unknown) => createSimulationsAdapter(client as SupabaseClient<Database>);

beforeAll(async () => {
  t = await team();
  machine = await machineIn(t, await projectFor(t));
  owner = adapter(t.owner.client);
  viewer = adapter(t.viewer.client);
});

describe('simulations adapter', () => {
  it('starts, sends, streams and reads the log back in order', async () => {
    const started = await owner.start({ machineId: machine, context: { n: 1 }, guards: { ok: true } });
    if (!started.ok) throw new Error(started.error.message);
    expect(started.value).toMatchObject({
      machineId: machine,
      context: { n: 1 },
      guards: { ok: true },
      status: 'running',
      lastSeq: 0,
    });
    const sim = started.value.id;

    const stream = viewer.events$(sim);
    const subscribed = firstValueFrom(stream.pipe(filter((e) => e.type === 'simlog.subscribed')));
    const received = firstValueFrom(
      stream.pipe(
        filter((e) => e.type === 'simlog.received'),
        take(2),
        toArray(),
      ),
    );
    await subscribed;
    expect(
      await viewer.send({ simulationId: sim, kind: 'event', type: 'GO', payload: { a: 1 }, guards: { ok: false } }),
    ).toEqual({ ok: true, value: { seq: 1 } });
    expect(await owner.send({ simulationId: sim, kind: 'time', type: null, payload: {}, guards: {} })).toEqual({
      ok: true,
      value: { seq: 2 },
    });
    const live = (await received).flatMap((e) => (e.type === 'simlog.received' ? e.entries : []));
    expect(live.map((e) => [e.seq, e.kind, e.type])).toEqual([
      [1, 'event', 'GO'],
      [2, 'time', null],
    ]);

    const log = await viewer.eventsSince(sim, 0);
    expect(log).toEqual({
      ok: true,
      value: [
        { seq: 1, kind: 'event', type: 'GO', payload: { a: 1 }, guards: { ok: false }, sender: t.viewer.id },
        { seq: 2, kind: 'time', type: null, payload: {}, guards: {}, sender: t.owner.id },
      ],
    });
    expect(await viewer.eventsSince(sim, 1)).toMatchObject({ ok: true, value: [{ seq: 2 }] });
    const listed = await viewer.list(machine);
    expect(listed.ok && listed.value[0]?.id).toBe(sim);
  });

  it("maps refusals to the port's codes", async () => {
    const started = await owner.start({ machineId: machine, context: null, guards: {} });
    if (!started.ok) throw new Error(started.error.message);
    const sim = started.value.id;
    const send = (over: Partial<Parameters<SimulationPort['send']>[0]>) =>
      viewer.send({ simulationId: sim, kind: 'event', type: 'GO', payload: {}, guards: {}, ...over });
    expect(await send({ payload: { blob: 'x'.repeat(70_000) } })).toMatchObject({
      ok: false,
      error: { code: 'too_large' },
    });
    expect(await send({ type: 'xstate.stop' })).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(await send({ simulationId: '00000000-0000-4000-8000-000000000000' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await adapter(t.outsider.client).start({ machineId: machine, context: null, guards: {} })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await owner.fork({ simulationId: sim, uptoSeq: 5, latest: false })).toMatchObject({
      ok: false,
      error: { code: 'invalid' },
    });
  });
});

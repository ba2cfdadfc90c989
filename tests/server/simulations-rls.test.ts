import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineIn, projectFor, type Team } from '../adapters/machines-fixtures.ts';
import { anonClient, signedInClient, type AnyClient } from '../setup/clients.ts';
import { call, callerClients, teamMachine, type Caller } from './rls-callers.ts';

/**
 * Simulations and their event logs under row level security, through supabase-js
 * ("Bad input and safety"): members of any role start and send; whoever may
 * read the project reads; outsiders and anon get nothing of a private project; rows
 * enter only through the functions, which order events on the server, refuse bad input
 * with Supabase's error shape (and store nothing), and rate-limit each person.
 */

type Actor = Caller;
const ACTORS: Actor[] = ['anon', 'outsider', 'viewer', 'editor', 'owner', 'service'];
const members = new Set<Actor>(['viewer', 'editor', 'owner', 'service']);

let t: Team;
let db: pg.Client;
let project: string;
let machine: string;
const clients = {} as Record<Actor, AnyClient>;

beforeAll(async () => {
  ({ t, db, project, machine } = await teamMachine());
  Object.assign(clients, callerClients(t));
});

afterAll(async () => {
  await db.end();
});

async function start(client: AnyClient, m = machine, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await call(client, 'start_simulation', { p_machine: m, ...extra });
  if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`);
  return (r.data as { id: string }).id;
}

const send = (client: AnyClient, sim: string, type: string | null = 'GO', extra: Record<string, unknown> = {}) =>
  call(client, 'send_simulation_event', {
    p_simulation: sim,
    p_kind: type === null ? 'time' : 'event',
    p_type: type,
    ...extra,
  });

async function stored(sim: string): Promise<number> {
  const r = await db.query<{ n: string }>(
    'select count(*) as n from public.simulation_events where simulation_id = $1',
    [sim],
  );
  return Number(r.rows[0]?.n);
}

describe('starting', () => {
  it.each(ACTORS)('start_simulation as %s', async (actor) => {
    const r = await call(clients[actor], 'start_simulation', {
      p_machine: machine,
      p_context: { n: 1 },
      p_guards: { ok: true },
    });
    if (members.has(actor)) {
      expect(r.error).toBeNull();
      expect(r.data).toMatchObject({
        machine_id: machine,
        project_id: project,
        machine_version: 0,
        initial_context: { n: 1 },
        guards: { ok: true },
        status: 'running',
        last_seq: 0,
      });
      // The simulation pins the machine's checkpointed definition at that version.
      const pinned = await db.query<{ definition: unknown }>('select definition from public.machines where id = $1', [
        machine,
      ]);
      expect((r.data as { definition: unknown }).definition).toEqual(pinned.rows[0]?.definition);
    } else if (actor === 'anon') {
      expect(r.error?.code).toBe('42501');
      expect(r.status).toBe(401);
    } else {
      // An outsider cannot see the machine: it is reported missing, so ids do not leak.
      expect(r.error).toMatchObject({ code: 'PT404', message: 'machine not found' });
      expect(r.status).toBe(404);
    }
  });

  it('refuses a bad context or guard switches with 22023 and stores nothing', async () => {
    const before = await db.query('select count(*) from public.simulations where machine_id = $1', [machine]);
    for (const args of [{ p_context: [1, 2] }, { p_guards: { ok: 'yes' } }, { p_guards: [true] }]) {
      const r = await call(t.owner.client, 'start_simulation', { p_machine: machine, ...args });
      expect(r.error?.code).toBe('22023');
      expect(r.status).toBe(400);
    }
    const after = await db.query('select count(*) from public.simulations where machine_id = $1', [machine]);
    expect(after.rows).toEqual(before.rows);
  });
});

describe('reading', () => {
  it.each(ACTORS)('select simulations and events of a private project as %s', async (actor) => {
    const sim = await start(t.owner.client);
    expect((await send(t.owner.client, sim)).error).toBeNull();
    const sims = await clients[actor].from('simulations').select('id').eq('id', sim);
    const events = await clients[actor].from('simulation_events').select('seq, type').eq('simulation_id', sim);
    expect(sims.error).toBeNull();
    expect(events.error).toBeNull();
    expect(sims.data).toEqual(members.has(actor) ? [{ id: sim }] : []);
    expect(events.data).toEqual(members.has(actor) ? [{ seq: 1, type: 'GO' }] : []);
  });

  it("lets guests and anyone read a public project's simulations, but not send", async () => {
    const open = await projectFor(t, 'public');
    const openMachine = await machineIn(t, open, 'public door');
    const sim = await start(t.viewer.client, openMachine);
    const guest = anonClient();
    const signedIn = await guest.auth.signInAnonymously();
    expect(signedIn.error).toBeNull();
    for (const reader of [guest, anonClient(), t.outsider.client]) {
      const r = await reader.from('simulations').select('id, created_by').eq('id', sim);
      expect(r.data).toEqual([{ id: sim, created_by: t.viewer.id }]);
    }
    const refused = await send(guest, sim);
    expect(refused.error).toMatchObject({
      code: '42501',
      message: 'guests watch simulations; create an account to take part',
    });
    expect(refused.status).toBe(403);
    const outsider = await send(t.outsider.client, sim);
    expect(outsider.error).toMatchObject({
      code: '42501',
      message: 'only members of the project send simulation events',
    });
    expect((await call(guest, 'start_simulation', { p_machine: openMachine })).error?.code).toBe('42501');
    expect(await stored(sim)).toBe(0);
  });

  it('lets a guest who joined by share link watch, but not start or send', async () => {
    const linked = await projectFor(t, 'public');
    const linkedMachine = await machineIn(t, linked, 'linked door');
    const sim = await start(t.owner.client, linkedMachine);
    const guest = anonClient();
    expect((await guest.auth.signInAnonymously()).error).toBeNull();
    const token = await t.owner.client
      .rpc('owned_share_tokens', { p_project: linked })
      .single<{ share_token: string }>();
    expect((await guest.rpc('join_shared_project', { p_token: token.data?.share_token ?? '' })).error).toBeNull();
    const refused = await send(guest, sim);
    expect(refused.error).toMatchObject({
      code: '42501',
      message: 'guests watch simulations; create an account to take part',
    });
    expect((await call(guest, 'start_simulation', { p_machine: linkedMachine })).error?.code).toBe('42501');
    expect((await guest.from('simulations').select('id').eq('id', sim)).data).toEqual([{ id: sim }]);
    expect(await stored(sim)).toBe(0);
  });
});

describe('writing', () => {
  it('refuses direct writes to the tables: rows enter only through the functions', async () => {
    const sim = await start(t.owner.client);
    const insert = await t.owner.client
      .from('simulation_events')
      .insert({ simulation_id: sim, seq: 1, project_id: project, machine_id: machine, kind: 'event', type: 'X' });
    expect(insert.error?.code).toBe('42501');
    const update = await t.owner.client.from('simulations').update({ last_seq: 10 }).eq('id', sim);
    expect(update.error?.code).toBe('42501');
    const remove = await t.owner.client.from('simulations').delete().eq('id', sim);
    expect(remove.error?.code).toBe('42501');
    expect((await t.owner.client.from('simulation_send_budget').select('*')).error?.code).toBe('42501');
  });

  it.each(ACTORS)('send_simulation_event as %s', async (actor) => {
    const sim = await start(t.owner.client);
    const r = await send(clients[actor], sim, 'GO', { p_payload: { amount: 3 }, p_guards: { ok: true } });
    if (members.has(actor)) {
      expect(r.error).toBeNull();
      expect(r.data).toEqual({ simulation_id: sim, seq: 1 });
      const row = await db.query(
        'select sender, kind, type, payload, guards from public.simulation_events where simulation_id = $1',
        [sim],
      );
      expect(row.rows).toEqual([
        {
          sender: actor === 'service' ? null : t[actor as 'owner'].id,
          kind: 'event',
          type: 'GO',
          payload: { amount: 3 },
          guards: { ok: true },
        },
      ]);
    } else {
      expect(r.error?.code).toBe(actor === 'anon' ? '42501' : 'PT404');
      expect(await stored(sim)).toBe(0);
    }
  });

  it('orders concurrent senders on the server: one gapless sequence', async () => {
    const sim = await start(t.owner.client);
    const senders = [t.owner.client, t.editor.client, t.viewer.client];
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => send(senders[i % 3]!, sim, `E${i}`)));
    expect(results.every((r) => r.error === null)).toBe(true);
    const seqs = results.map((r) => (r.data as { seq: number }).seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const row = await db.query<{ last_seq: string }>('select last_seq from public.simulations where id = $1', [sim]);
    expect(Number(row.rows[0]?.last_seq)).toBe(24);
  });

  it("refuses malformed events, unknown simulations and big payloads in Supabase's shape, storing nothing", async () => {
    const sim = await start(t.editor.client);
    const cases: [Record<string, unknown>, string, number, RegExp][] = [
      [{ p_kind: 'jump', p_type: 'GO' }, '22023', 400, /kind must be/],
      [{ p_kind: 'event', p_type: null }, '22023', 400, /needs a type/],
      [{ p_kind: 'event', p_type: 'x'.repeat(201) }, '22023', 400, /needs a type/],
      [{ p_kind: 'event', p_type: 'xstate.stop' }, '22023', 400, /reserved by XState/],
      [{ p_kind: 'time', p_type: 'GO' }, '22023', 400, /takes no event type/],
      [{ p_kind: 'event', p_type: 'GO', p_payload: [1] }, '22023', 400, /payload must be a JSON object/],
      [{ p_kind: 'event', p_type: 'GO', p_payload: { type: 'OTHER' } }, '22023', 400, /must not set "type"/],
      [{ p_kind: 'event', p_type: 'GO', p_guards: { ok: 1 } }, '22023', 400, /true or false/],
      [{ p_kind: 'event', p_type: 'GO', p_payload: { blob: 'x'.repeat(65_537) } }, 'PT413', 413, /larger than 64 KB/],
      [{ p_simulation: randomUUID(), p_kind: 'event', p_type: 'GO' }, 'PT404', 404, /simulation not found/],
    ];
    for (const [args, code, status, message] of cases) {
      const r = await call(t.editor.client, 'send_simulation_event', { p_simulation: sim, ...args });
      expect(r.status, JSON.stringify(args).slice(0, 80)).toBe(status);
      expect(r.error?.code).toBe(code);
      expect(r.error?.message).toMatch(message);
      expect(r.error).toHaveProperty('hint');
      expect(r.error).toHaveProperty('details');
    }
    expect(await stored(sim)).toBe(0);
    // A payload just under the limit is fine, and an actor's done event may be sent.
    expect(
      (await send(t.editor.client, sim, 'xstate.done.actor.gateway', { p_payload: { output: 'x'.repeat(60_000) } }))
        .error,
    ).toBeNull();
    expect((await send(t.editor.client, sim, null)).data).toEqual({ simulation_id: sim, seq: 2 });
  });

  it('refuses sending to an ended simulation; forking copies the log up to a step', async () => {
    const sim = await start(t.owner.client);
    for (const type of ['A', 'B', 'C']) await send(t.viewer.client, sim, type);
    const ended = await call(t.viewer.client, 'end_simulation', { p_simulation: sim });
    expect(ended.data).toMatchObject({ status: 'ended' });
    const refused = await send(t.viewer.client, sim);
    expect(refused.error).toMatchObject({ code: 'PT409', message: 'this simulation has ended' });
    const fork = await call(t.viewer.client, 'fork_simulation', { p_simulation: sim, p_upto_seq: 2 });
    expect(fork.data).toMatchObject({
      forked_from: sim,
      forked_at_seq: 2,
      last_seq: 2,
      status: 'running',
      created_by: t.viewer.id,
    });
    const forked = (fork.data as { id: string }).id;
    const events = await t.viewer.client
      .from('simulation_events')
      .select('seq, type')
      .eq('simulation_id', forked)
      .order('seq');
    expect(events.data).toEqual([
      { seq: 1, type: 'A' },
      { seq: 2, type: 'B' },
    ]);
    expect((await send(t.viewer.client, forked, 'D')).data).toEqual({ simulation_id: forked, seq: 3 });
    expect((await call(t.viewer.client, 'fork_simulation', { p_simulation: sim, p_upto_seq: 9 })).error?.code).toBe(
      '22023',
    );
    expect((await call(t.outsider.client, 'fork_simulation', { p_simulation: sim, p_upto_seq: 1 })).error?.code).toBe(
      'PT404',
    );
  });
});

describe('rate limit', () => {
  it('refuses a person over budget with PT429 and stores nothing', async () => {
    const sim = await start(t.editor.client);
    // An exhausted budget: far enough in debt that no refill during the test covers it.
    await db.query(
      `insert into public.simulation_send_budget (user_id, tokens, refreshed_at) values ($1, -100000, clock_timestamp())
                    on conflict (user_id) do update set tokens = -100000, refreshed_at = clock_timestamp()`,
      [t.editor.id],
    );
    const r = await send(t.editor.client, sim);
    expect(r.status).toBe(429);
    expect(r.error).toMatchObject({
      code: 'PT429',
      message: 'too many simulation events: at most 50 a second',
      hint: 'Wait a moment and send again.',
    });
    expect(await stored(sim)).toBe(0);
    // Other people have their own budget.
    expect((await send(t.owner.client, sim)).error).toBeNull();
    await db.query('delete from public.simulation_send_budget where user_id = $1', [t.editor.id]);
  });

  it('never accepts more than a burst of 50 plus 50 a second from one person', async () => {
    // A fresh member, so no earlier test has spent from this person's budget.
    const fresh = await signedInClient('sim-burst');
    const added = await t.owner.client
      .from('project_members')
      .insert({ project_id: project, user_id: fresh.user.id, role: 'viewer', joined_via: 'added' });
    expect(added.error).toBeNull();
    const sim = await start(fresh.client);
    const began = process.hrtime.bigint();
    const results = await Promise.all(Array.from({ length: 120 }, () => send(fresh.client, sim)));
    const seconds = Number(process.hrtime.bigint() - began) / 1e9;
    const accepted = results.filter((r) => r.error === null).length;
    const refused = results.filter((r) => r.error?.code === 'PT429').length;
    expect(accepted + refused).toBe(120);
    expect(accepted).toBeGreaterThanOrEqual(50);
    expect(accepted).toBeLessThanOrEqual(51 + Math.ceil(50 * seconds));
    expect(await stored(sim)).toBe(accepted);
  });
});

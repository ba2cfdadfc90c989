import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommentsAdapter } from '../../src/adapters/supabase/comments.ts';
import type { CommentAnchor, CommentsPort } from '../../src/lib/ports/comments.ts';
import { machineIn, type Team } from '../adapters/machines-fixtures.ts';
import { anonClient, type AnyClient } from '../setup/clients.ts';
import { call, teamMachine } from './rls-callers.ts';

/**
 * Threads on a timeline entry (an edit's seq in the machine's log) and on a simulation
 * step (`<run id>:<step>`), through supabase-js against the real backend: members start
 * them, readers read them, and the database refuses an anchor that is not in this
 * machine's history or runs, in PostgREST's shape, writing nothing.
 */

let t: Team;
let db: pg.Client;
let project: string;
let machine: string;
let other: string;
let run: string;
let otherRun: string;

/** An op at `seq` in `machineId`'s log, written as the server would. */
const logOp = (machineId: string, seq: number) =>
  db.query(
    `insert into public.machine_ops (machine_id, seq, client_id, batch_id, op)
     values ($1, $2, 'test', gen_random_uuid(), '{"type":"state.rename","id":"s_root","name":"x"}'::jsonb)`,
    [machineId, seq],
  );

/** A run of `machineId` started by `client`, with `steps` events sent. */
async function runOf(client: AnyClient, machineId: string, steps: number): Promise<string> {
  const started = await call(client, 'start_simulation', { p_machine: machineId });
  if (started.error) throw new Error(started.error.message);
  const id = (started.data as { id: string }).id;
  for (let i = 0; i < steps; i++) {
    const sent = await call(client, 'send_simulation_event', { p_simulation: id, p_kind: 'event', p_type: `GO${i}` });
    if (sent.error) throw new Error(sent.error.message);
  }
  return id;
}

const threads = async (machineId: string) =>
  Number(
    (
      await db.query<{ n: string }>('select count(*) as n from public.comment_threads where machine_id = $1', [
        machineId,
      ])
    ).rows[0]!.n,
  );

const start = (port: CommentsPort, anchor: CommentAnchor, machineId = machine) =>
  port.startThread({ machineId, anchor, body: `on ${anchor.kind} ${anchor.value}`, mentions: [] });

beforeAll(async () => {
  ({ t, db, project, machine } = await teamMachine());
  other = await machineIn(t, project, 'other');
  await logOp(machine, 1);
  await logOp(machine, 2);
  await logOp(other, 1);
  await logOp(other, 2);
  await logOp(other, 3);
  run = await runOf(t.editor.client, machine, 3);
  otherRun = await runOf(t.editor.client, other, 3);
}, 60_000);

afterAll(async () => {
  await db.end();
});

describe('a thread on a timeline entry or a simulation step', () => {
  it('is started by a member and read by the machine’s readers, live rows included', async () => {
    const viewer = createCommentsAdapter(t.viewer.client as never);
    const onEdit = await start(viewer, { kind: 'timeline', value: '2' });
    expect(onEdit).toMatchObject({ ok: true, value: { thread: { anchor: { kind: 'timeline', value: '2' } } } });
    const onStep = await start(createCommentsAdapter(t.editor.client as never), { kind: 'step', value: `${run}:3` });
    expect(onStep).toMatchObject({ ok: true, value: { thread: { anchor: { kind: 'step', value: `${run}:3` } } } });

    const listed = await createCommentsAdapter(t.owner.client as never).list(machine);
    if (!listed.ok) throw new Error(listed.error.message);
    const anchors = listed.value.threads.map((th) => `${th.anchor.kind} ${th.anchor.value}`);
    expect(anchors).toEqual(expect.arrayContaining(['timeline 2', `step ${run}:3`]));
  });

  it('is refused to guests and outsiders as any thread is', async () => {
    const guest = anonClient();
    const signedIn = await guest.auth.signInAnonymously();
    if (signedIn.error) throw signedIn.error;
    const before = await threads(machine);
    const outsider = await start(createCommentsAdapter(t.outsider.client as never), { kind: 'timeline', value: '1' });
    expect(outsider).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const anon = await start(createCommentsAdapter(guest as never), { kind: 'step', value: `${run}:1` });
    expect(anon.ok).toBe(false);
    expect(await threads(machine)).toBe(before);
  });
});

describe('an anchor the database refuses', () => {
  const refusals: [string, () => CommentAnchor, RegExp][] = [
    ['an edit the log does not have', () => ({ kind: 'timeline', value: '3' }), /has no edit #3/],
    ['an edit named by something else than a seq', () => ({ kind: 'timeline', value: 'edit:1' }), /whole number/],
    ['a step of another machine’s run', () => ({ kind: 'step', value: `${otherRun}:1` }), /not a run of this machine/],
    ['a step a run has not taken', () => ({ kind: 'step', value: `${run}:4` }), /has no step 4/],
    ['a step without its run', () => ({ kind: 'step', value: '2' }), /<simulation id>:<step>/],
    [
      'a run that does not exist',
      () => ({ kind: 'step', value: '00000000-0000-4000-8000-000000000000:1' }),
      /not a run of this machine/,
    ],
  ];

  it.each(refusals)('%s, in PostgREST’s shape, with nothing written', async (_, anchor, words) => {
    const before = await threads(machine);
    const raw = await call(t.editor.client, 'start_comment_thread', {
      p_machine: machine,
      p_anchor_kind: anchor().kind,
      p_anchor: anchor().value,
      p_body: 'refused',
    });
    expect(raw.status).toBe(400);
    expect(raw.error?.code).toBe('22023');
    expect(raw.error?.message).toMatch(words);
    expect(raw.error?.hint).toBeTruthy();
    const port = await start(createCommentsAdapter(t.editor.client as never), anchor());
    if (port.ok) throw new Error('the port took a bad anchor');
    expect(port.error.code).toBe('invalid');
    expect(port.error.message).toMatch(words);
    expect(await threads(machine)).toBe(before);
  });

  it('accepts the same seq on the machine whose log has it', async () => {
    const r = await start(createCommentsAdapter(t.editor.client as never), { kind: 'timeline', value: '3' }, other);
    expect(r.ok).toBe(true);
  });
});

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineIn, projectFor, type Team } from '../adapters/machines-fixtures.ts';
import type { AnyClient } from '../setup/clients.ts';
import { callerClients, callerIds, teamMachine, type Caller } from './rls-callers.ts';

/**
 * Saved tests and their runs under row level security, through supabase-js
 * (bad input and safety): members of any role, viewers included, save and run tests;
 * whoever may read the project reads them; outsiders and anon get nothing of a private
 * project; bad rows are refused in Supabase's error shape and nothing is stored.
 */

type Actor = Caller;
const ACTORS: Actor[] = ['anon', 'outsider', 'viewer', 'editor', 'owner', 'service'];
const members = new Set<Actor>(['viewer', 'editor', 'owner', 'service']);

let t: Team;
let db: pg.Client;
let project: string;
let machine: string;
const clients = {} as Record<Actor, AnyClient>;
const ids = {} as Record<Actor, string | undefined>;

const script = { start: ['idle'], steps: [{ kind: 'event', type: 'GO', payload: {}, guards: {}, expect: ['done'] }] };

beforeAll(async () => {
  ({ t, db, project, machine } = await teamMachine());
  Object.assign(clients, callerClients(t));
  Object.assign(ids, callerIds(t));
});

afterAll(async () => {
  await db.end();
});

const row = (actor: Actor, name: string) => ({
  project_id: project,
  machine_id: machine,
  name,
  script,
  machine_version: 0,
  ...(actor === 'service' ? {} : { created_by: ids[actor] ?? null }),
});

async function savedBy(client: AnyClient, name: string): Promise<string> {
  const r = await client.from('machine_tests').insert(row('owner', name)).select('id').single();
  if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`);
  return (r.data as { id: string }).id; // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion
}

describe('saving and running', () => {
  it.each(ACTORS)('insert a test and a run as %s', async (actor) => {
    const name = `test by ${actor}`;
    const saved = await clients[actor].from('machine_tests').insert(row(actor, name)).select('id');
    if (!members.has(actor)) {
      expect(saved.error?.code).toBe('42501');
      const stored = await db.query('select 1 from public.machine_tests where name = $1', [name]);
      expect(stored.rowCount).toBe(0);
      return;
    }
    expect(saved.error).toBeNull();
    const test = (saved.data as { id: string }[])[0]?.id as string;
    const run = await clients[actor]
      .from('machine_test_runs')
      .insert({
        test_id: test,
        project_id: project,
        machine_id: machine,
        machine_version: 0,
        status: 'fail',
        failed_step: 1,
        message: 'step 1: after GO, in idle, expected done',
        ...(actor === 'service' ? {} : { run_by: ids[actor] }),
      })
      .select('status, failed_step');
    expect(run.error).toBeNull();
    expect(run.data).toEqual([{ status: 'fail', failed_step: 1 }]);
  });

  it('refuses bad rows with Supabase errors and stores nothing', async () => {
    const before = await db.query('select count(*) from public.machine_tests where machine_id = $1', [machine]);
    const bad: Record<string, unknown>[] = [
      { ...row('owner', ''), name: '   ' },
      { ...row('owner', 'no steps'), script: { start: [] } },
      { ...row('owner', 'someone else'), created_by: t.editor.id },
    ];
    for (const r of bad) {
      const res = await t.owner.client.from('machine_tests').insert(r);
      expect(res.error?.code).toMatch(/^(23514|42501)$/);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    // A machine of another project: the machine is "not found", ids do not leak.
    const other = await projectFor(t);
    const otherMachine = await machineIn(t, other, 'other');
    const smuggled = await t.owner.client
      .from('machine_tests')
      .insert({ ...row('owner', 'smuggled'), machine_id: otherMachine });
    expect(smuggled.error?.code).toBe('PT404');
    const after = await db.query('select count(*) from public.machine_tests where machine_id = $1', [machine]);
    expect(after.rows).toEqual(before.rows);
    // A run must be a pass or a failure at a step.
    const test = await savedBy(t.owner.client, 'runs');
    const noStep = await t.viewer.client.from('machine_test_runs').insert({
      test_id: test,
      project_id: project,
      machine_id: machine,
      machine_version: 0,
      status: 'fail',
      run_by: t.viewer.id,
    });
    expect(noStep.error?.code).toBe('23514');
  });
});

describe('reading', () => {
  it.each(ACTORS)('select tests and runs of a private project as %s', async (actor) => {
    const test = await savedBy(t.owner.client, `read ${actor}`);
    const ran = await t.viewer.client.from('machine_test_runs').insert({
      test_id: test,
      project_id: project,
      machine_id: machine,
      machine_version: 0,
      status: 'pass',
      run_by: t.viewer.id,
    });
    expect(ran.error).toBeNull();
    const tests = await clients[actor].from('machine_tests').select('id').eq('id', test);
    const runs = await clients[actor].from('machine_test_runs').select('status').eq('test_id', test);
    expect(tests.error).toBeNull();
    expect(runs.error).toBeNull();
    expect(tests.data).toEqual(members.has(actor) ? [{ id: test }] : []);
    expect(runs.data).toEqual(members.has(actor) ? [{ status: 'pass' }] : []);
  });

  it('lets the author, owners and editors delete a test; a viewer only their own', async () => {
    const byOwner = await savedBy(t.owner.client, 'owned');
    const viewerTry = await t.viewer.client.from('machine_tests').delete().eq('id', byOwner).select('id');
    expect(viewerTry.data).toEqual([]);
    const editorTry = await t.editor.client.from('machine_tests').delete().eq('id', byOwner).select('id');
    expect(editorTry.data).toEqual([{ id: byOwner }]);
  });
});

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Op } from '../../src/lib/model/op-types.ts';
import { mergeOutcome, netChange } from '../../src/lib/proposals/merge.ts';
import { definitionAtSeq } from '../../src/lib/timeline/history.ts';
import { emptyDefinition, type Team } from '../adapters/machines-fixtures.ts';
import { backendInfo, signedInClient, type AnyClient } from '../setup/clients.ts';
import { call, callerClients, teamMachine, type Caller, type Result } from './rls-callers.ts';

/**
 * Proposals under row level security, from the outside: through supabase-js and through
 * raw HTTP as PostgREST answers it. Owners and editors propose; a draft's log takes ops
 * from its author and the people they invite only; the author requests review; owners
 * and editors other than the author review; owners and editors merge, once, a proposal
 * in review or approved; viewers read everything. A removed member's draft stays
 * readable to the project and they lose access at once. Bad input and steps out of turn
 * are refused with their own message, and nothing is written.
 */

const ACTORS: Caller[] = ['anon', 'outsider', 'viewer', 'editor', 'owner', 'service'];
const readers = new Set<Caller>(['viewer', 'editor', 'owner', 'service']);

let t: Team;
let db: pg.Client;
let project: string;
let machine: string;
const clients = {} as Record<Caller, AnyClient>;

interface ProposalRow {
  id: string;
  draft_id: string;
  status: string;
  base_seq: number;
  merged_by: string | null;
  merged_first_seq: number | null;
  merged_last_seq: number | null;
  merged_ops: number | null;
}

const addState = (id: string, key: string): Op => ({
  type: 'state.add',
  id,
  parent: 's_root',
  key,
  stateType: 'atomic',
  index: null,
});

const commit = (client: AnyClient, machineId: string, ops: Op[]) =>
  call(client, 'commit_machine_ops', {
    p_machine: machineId,
    p_client_id: 'test',
    p_batch_id: randomUUID(),
    p_ops: ops,
  });

const ok = (r: Result): unknown => {
  if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.data;
};

/** The target's log folded to `seq` (the head when absent). */
async function definitionOf(machineId: string, seq?: number) {
  const rows = await db.query<{ seq: string; batch_id: string; author: string | null; created_at: Date; op: Op }>(
    `select seq, batch_id, author, created_at, op from public.machine_ops where machine_id = $1 order by seq`,
    [machineId],
  );
  const ops = rows.rows.map((r) => ({
    seq: Number(r.seq),
    batchId: r.batch_id,
    author: r.author,
    at: r.created_at.toISOString(),
    op: r.op,
  }));
  return definitionAtSeq(ops, seq ?? ops.length);
}

/** The first row's `n` of a count query, as a number. */
const count = async (sql: string, params: unknown[] = []): Promise<number> =>
  Number((await db.query<{ n: string }>(sql, params)).rows[0]?.n);

const head = (machineId: string): Promise<number> =>
  count('select count(*) as n from public.machine_ops where machine_id = $1', [machineId]);

/** A proposal on `machine` by `client`, forked at the head. */
async function propose(client: AnyClient, title = 'a change'): Promise<ProposalRow> {
  const base = await head(machine);
  return ok(
    await call(client, 'propose_change', {
      p_machine: machine,
      p_title: title,
      p_definition: await definitionOf(machine, base),
      p_base_seq: base,
    }),
  ) as ProposalRow;
}

const stored = async (id: string) =>
  (await db.query('select * from public.proposals where id = $1', [id])).rows[0] as ProposalRow | undefined;

beforeAll(async () => {
  ({ t, db, project, machine } = await teamMachine());
  Object.assign(clients, callerClients(t));
  ok(await commit(t.owner.client, machine, [addState('s_idle', 'idle'), addState('s_busy', 'busy')]));
});

afterAll(async () => {
  await db.end();
});

describe('proposing a change', () => {
  it.each(ACTORS)('as %s', async (actor) => {
    const before = await count('select count(*) as n from public.proposals');
    const r = await call(clients[actor], 'propose_change', {
      p_machine: machine,
      p_title: `by ${actor}`,
      p_definition: emptyDefinition(),
      p_base_seq: 0,
    });
    if (actor === 'editor' || actor === 'owner') {
      expect(r.error).toBeNull();
      const row = r.data as ProposalRow;
      expect(row).toMatchObject({ status: 'draft', base_seq: 0 });
      const draft = await db.query('select draft_of, name from public.machines where id = $1', [row.draft_id]);
      expect(draft.rows[0]).toEqual({ draft_of: machine, name: `by ${actor}` });
      return;
    }
    // anon may not call it; an outsider cannot see the machine; a viewer may not propose; the service role is nobody.
    expect(r.error?.code).toBe(actor === 'outsider' ? 'PT404' : '42501');
    expect(await count('select count(*) as n from public.proposals')).toBe(before);
  });

  it.each(ACTORS)('reading as %s', async (actor) => {
    const read = await clients[actor].from('proposals').select('title').eq('machine_id', machine);
    expect(read.error).toBeNull();
    const titles = (read.data as { title: string }[]).map((r) => r.title);
    if (readers.has(actor)) expect(titles).toEqual(expect.arrayContaining(['by editor', 'by owner']));
    else expect(titles).toEqual([]);
  });

  it.each([
    ['an empty title', { p_title: '  ' }, '22023', "a proposal's title is 1 to 120 characters (this one has 0)"],
    [
      'a title too long',
      { p_title: 'x'.repeat(121) },
      '22023',
      "a proposal's title is 1 to 120 characters (this one has 121)",
    ],
    ['a base beyond the log', { p_base_seq: 99 }, '22023', "base seq 99 is outside the machine's log (0 to 2)"],
    [
      'a definition that is no machine',
      { p_definition: [1] },
      '22023',
      "a proposal starts from the machine's definition (an object with root and states)",
    ],
    ['a machine that does not exist', { p_machine: randomUUID() }, 'PT404', 'machine not found'],
  ])('refuses %s, writing nothing', async (_, change, code, message) => {
    const before = await db.query(
      // This project's rows only: other files write machines on the same backend meanwhile.
      `select (select count(*) from public.proposals where machine_id = $1) as p,
              (select count(*) from public.machines
                where project_id = (select project_id from public.machines where id = $1)) as m`,
      [machine],
    );
    const r = await call(t.editor.client, 'propose_change', {
      p_machine: machine,
      p_title: 'fine',
      p_definition: emptyDefinition(),
      p_base_seq: 0,
      ...change,
    });
    expect(r.error).toMatchObject({ code, message });
    const after = await db.query(
      // This project's rows only: other files write machines on the same backend meanwhile.
      `select (select count(*) from public.proposals where machine_id = $1) as p,
              (select count(*) from public.machines
                where project_id = (select project_id from public.machines where id = $1)) as m`,
      [machine],
    );
    expect(after.rows[0]).toEqual(before.rows[0]);
  });

  it('refuses a draft of a draft', async () => {
    const p = await propose(t.editor.client, 'outer');
    const r = await call(t.editor.client, 'propose_change', {
      p_machine: p.draft_id,
      p_title: 'inner',
      p_definition: emptyDefinition(),
      p_base_seq: 0,
    });
    expect(r.error).toMatchObject({
      code: '22023',
      message: "this machine is a proposal's draft: propose changes to the machine itself",
    });
  });
});

describe("a draft's log", () => {
  it('takes ops from its author and the people they invite only; viewers read it', async () => {
    const p = await propose(t.editor.client, 'who edits');
    expect((await commit(t.editor.client, p.draft_id, [addState('s_a', 'a')])).error).toBeNull();
    const byOwner = await commit(t.owner.client, p.draft_id, [addState('s_b', 'b')]);
    expect(byOwner.error).toMatchObject({
      code: '42501',
      message: "only the proposal's author and the people they invite edit this draft",
    });
    expect((await commit(t.viewer.client, p.draft_id, [addState('s_c', 'c')])).error?.code).toBe('42501');
    // Only the author invites, and only owners or editors.
    expect(
      (await call(t.owner.client, 'invite_to_proposal', { p_proposal: p.id, p_user: t.owner.id })).error?.code,
    ).toBe('42501');
    expect(
      (await call(t.editor.client, 'invite_to_proposal', { p_proposal: p.id, p_user: t.viewer.id })).error,
    ).toMatchObject({ code: '22023', message: 'only owners and editors of the project can be invited to a draft' });
    ok(await call(t.editor.client, 'invite_to_proposal', { p_proposal: p.id, p_user: t.owner.id }));
    expect((await commit(t.owner.client, p.draft_id, [addState('s_b', 'b')])).error).toBeNull();
    const keys = Object.values((await definitionOf(p.draft_id))!.states).map((s) => s.key);
    expect(keys).toEqual(expect.arrayContaining(['idle', 'busy', 'a', 'b']));
    expect(keys).not.toContain('c');
    const read = await t.viewer.client.from('machine_ops').select('seq').eq('machine_id', p.draft_id);
    expect(read.data).toHaveLength(3);
  });

  it('is closed by its author, an owner or an editor, never by a viewer, once; then takes no ops', async () => {
    const byAuthor = await propose(t.editor.client, 'closed by its author');
    const byOwner = await propose(t.editor.client, 'closed by an owner');
    const byEditor = await propose(t.owner.client, 'closed by an editor');
    for (const caller of [t.viewer.client, t.outsider.client]) {
      const refused = (await call(caller, 'close_proposal', { p_proposal: byAuthor.id })).error;
      expect(refused?.code).toMatch(/^(42501|PT404)$/);
    }
    expect((await call(t.viewer.client, 'close_proposal', { p_proposal: byAuthor.id })).error).toMatchObject({
      code: '42501',
      message: "only the proposal's author, owners and editors close it",
    });
    ok(await call(t.editor.client, 'close_proposal', { p_proposal: byAuthor.id }));
    ok(await call(t.owner.client, 'close_proposal', { p_proposal: byOwner.id }));
    const closed = ok(await call(t.editor.client, 'close_proposal', { p_proposal: byEditor.id })) as ProposalRow;
    expect(closed.status).toBe('closed');
    expect((await call(t.owner.client, 'close_proposal', { p_proposal: byEditor.id })).error).toMatchObject({
      code: 'PT409',
      message: 'this proposal is already closed',
    });
    expect((await commit(t.owner.client, byEditor.draft_id, [addState('s_shut', 'shut')])).error).toMatchObject({
      code: 'PT409',
      message: 'this proposal is closed: its draft no longer changes',
    });
    for (const p of [byAuthor, byOwner, byEditor]) expect(await stored(p.id)).toMatchObject({ status: 'closed' });
  });

  it('a draft is renamed and deleted by its author (or an owner), not by another editor', async () => {
    const p = await propose(t.owner.client, 'owners draft');
    const renamed = await t.editor.client
      .from('machines')
      .update({ name: 'taken over' })
      .eq('id', p.draft_id)
      .select('id');
    expect(renamed.data ?? []).toEqual([]);
    const deleted = await t.editor.client.from('machines').delete().eq('id', p.draft_id).select('id');
    expect(deleted.data ?? []).toEqual([]);
    expect((await db.query('select name from public.machines where id = $1', [p.draft_id])).rows).toEqual([
      { name: 'owners draft' },
    ]);
  });
});

describe('review and merge', () => {
  it('steps in turn: review requested by the author, reviewed by others, merged once by an owner or editor', async () => {
    const base = await head(machine);
    const p = await propose(t.editor.client, 'add waiting');
    ok(await commit(t.editor.client, p.draft_id, [addState('s_waiting', 'waiting')]));
    const draft = (await definitionOf(p.draft_id))!;
    const ops = netChange((await definitionOf(machine, base))!, draft);
    expect(ops.length).toBeGreaterThan(0);
    const merge = (client: AnyClient) =>
      call(client, 'merge_proposal', { p_proposal: p.id, p_batch_id: randomUUID(), p_ops: ops });

    // A draft is not reviewed or merged yet.
    expect((await merge(t.owner.client)).error).toMatchObject({
      code: 'PT409',
      message: 'this proposal is draft: a proposal is merged once it is in review or approved',
    });
    expect(
      (await call(t.owner.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'approved' })).error?.code,
    ).toBe('PT409');
    // Only the author requests review.
    expect((await call(t.owner.client, 'request_proposal_review', { p_proposal: p.id })).error?.code).toBe('42501');
    expect(
      (ok(await call(t.editor.client, 'request_proposal_review', { p_proposal: p.id })) as ProposalRow).status,
    ).toBe('in_review');
    // Reviews: not the author, not a viewer, not an outsider; a bad verdict is named.
    expect(
      (await call(t.editor.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'approved' })).error,
    ).toMatchObject({ code: '42501', message: 'the author does not review their own proposal' });
    expect(
      (await call(t.viewer.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'approved' })).error,
    ).toMatchObject({ code: '42501', message: 'only owners and editors review proposals' });
    expect(
      (await call(t.outsider.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'approved' })).error?.code,
    ).toBe('PT404');
    expect((await call(t.owner.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'lgtm' })).error?.code).toBe(
      '22023',
    );
    ok(await call(t.owner.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'changes_requested' }));
    expect((await merge(t.owner.client)).error?.code).toBe('PT409');
    ok(await call(t.editor.client, 'request_proposal_review', { p_proposal: p.id }));
    ok(await call(t.owner.client, 'review_proposal', { p_proposal: p.id, p_verdict: 'approved' }));
    const reviews = await t.viewer.client
      .from('proposal_reviews')
      .select('verdict')
      .eq('proposal_id', p.id)
      .order('created_at');
    expect(reviews.data).toEqual([{ verdict: 'changes_requested' }, { verdict: 'approved' }]);

    // The target moves meanwhile.
    ok(await commit(t.owner.client, machine, [addState('s_meanwhile', 'meanwhile')]));
    const headBefore = await head(machine);

    // A viewer may not merge; nothing is written.
    expect((await merge(t.viewer.client)).error).toMatchObject({
      code: '42501',
      message: 'only owners and editors merge proposals',
    });
    expect(await head(machine)).toBe(headBefore);

    const merged = ok(await merge(t.editor.client)) as ProposalRow;
    expect(merged).toMatchObject({
      status: 'merged',
      merged_by: t.editor.id,
      merged_first_seq: headBefore + 1,
      merged_last_seq: headBefore + ops.length,
      merged_ops: ops.length,
    });
    const batch = await db.query(
      'select distinct client_id, author from public.machine_ops where machine_id = $1 and seq > $2',
      [machine, headBefore],
    );
    expect(batch.rows).toEqual([{ client_id: `proposal:${p.id}`, author: t.editor.id }]);
    const keys = Object.values((await definitionOf(machine))!.states).map((s) => s.key);
    expect(keys).toEqual(expect.arrayContaining(['idle', 'busy', 'meanwhile', 'waiting']));

    // Once: a second merge is refused and writes nothing; the draft no longer changes.
    expect((await merge(t.owner.client)).error).toMatchObject({
      code: 'PT409',
      message: 'this proposal is already merged',
    });
    expect(await head(machine)).toBe(headBefore + ops.length);
    expect((await commit(t.editor.client, p.draft_id, [addState('s_late', 'late')])).error).toMatchObject({
      code: 'PT409',
      message: 'this proposal is merged: its draft no longer changes',
    });
  });

  it('two merges at once: one lands, the other is refused', async () => {
    const p = await propose(t.editor.client, 'raced');
    ok(await commit(t.editor.client, p.draft_id, [addState('s_raced', 'raced')]));
    ok(await call(t.editor.client, 'request_proposal_review', { p_proposal: p.id }));
    const ops = netChange((await definitionOf(machine, p.base_seq))!, (await definitionOf(p.draft_id))!);
    const before = await head(machine);
    const both = await Promise.all(
      [t.owner.client, t.editor.client].map((c) =>
        call(c, 'merge_proposal', { p_proposal: p.id, p_batch_id: randomUUID(), p_ops: ops }),
      ),
    );
    expect(both.filter((r) => r.error === null)).toHaveLength(1);
    expect(both.find((r) => r.error)?.error).toMatchObject({
      code: 'PT409',
      message: 'this proposal is already merged',
    });
    expect(await head(machine)).toBe(before + ops.length);
  });

  it('lists what no longer applies: a state the draft changed was deleted meanwhile', async () => {
    const p = await propose(t.editor.client, 'rename busy');
    const draftBusy = (await definitionOf(p.draft_id))!;
    expect(draftBusy.states.s_busy).toBeDefined();
    ok(await commit(t.editor.client, p.draft_id, [{ type: 'state.rename', id: 's_busy', key: 'working' }]));
    ok(await call(t.editor.client, 'request_proposal_review', { p_proposal: p.id }));
    ok(await commit(t.owner.client, machine, [{ type: 'state.delete', id: 's_busy' }]));
    const ops = netChange((await definitionOf(machine, p.base_seq))!, (await definitionOf(p.draft_id))!);
    const merged = ok(
      await call(t.owner.client, 'merge_proposal', { p_proposal: p.id, p_batch_id: randomUUID(), p_ops: ops }),
    ) as ProposalRow;
    const before = (await definitionOf(machine, merged.merged_first_seq! - 1))!;
    const outcome = mergeOutcome(before, ops);
    expect(outcome.notApplied.map((n) => n.op)).toEqual([{ type: 'state.rename', id: 's_busy', key: 'working' }]);
    expect(outcome.definition).toEqual(await definitionOf(machine));
  });

  it('answers raw HTTP in PostgREST shape, and writes nothing', async () => {
    const p = await propose(t.editor.client, 'raw');
    ok(await call(t.editor.client, 'request_proposal_review', { p_proposal: p.id }));
    const { url, anonKey } = backendInfo();
    const tokenOf = async (c: AnyClient) => (await c.auth.getSession()).data.session?.access_token ?? '';
    const post = async (path: string, body: unknown, key: string) =>
      fetch(`${url}/rest/v1/${path}`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const mergeBody = { p_proposal: p.id, p_batch_id: randomUUID(), p_ops: [addState('s_raw', 'raw')] };
    const byViewer = await post('rpc/merge_proposal', mergeBody, await tokenOf(t.viewer.client));
    expect(byViewer.status).toBe(403);
    expect(await byViewer.json()).toMatchObject({ code: '42501', message: 'only owners and editors merge proposals' });
    const byAnon = await post('rpc/merge_proposal', mergeBody, anonKey);
    expect(byAnon.status).toBe(401);
    const direct = await post(
      'proposals',
      { machine_id: machine, draft_id: machine, title: 'forged', base_seq: 0 },
      await tokenOf(t.owner.client),
    );
    expect(direct.status).toBe(403);
    expect(await direct.json()).toMatchObject({ code: '42501' });
    const badOps = await post(
      'rpc/merge_proposal',
      { ...mergeBody, p_ops: [{ type: 'state.fly' }] },
      await tokenOf(t.owner.client),
    );
    expect(badOps.status).toBe(400);
    expect(await badOps.json()).toMatchObject({ code: '22023', message: 'op 0 has an unknown type "state.fly"' });
    const missing = await post(
      'rpc/review_proposal',
      { p_proposal: randomUUID(), p_verdict: 'approved' },
      await tokenOf(t.owner.client),
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'PT404', message: 'proposal not found' });
    expect(await stored(p.id)).toMatchObject({ status: 'in_review', merged_by: null });
    expect(await count('select count(*) as n from public.proposals where title = $1', ['forged'])).toBe(0);
  });
});

describe('a removed member', () => {
  it('loses access at once; their draft stays readable to the project', async () => {
    const gone = await signedInClient('p-removed');
    await db.query(
      `insert into public.project_members (project_id, user_id, role, joined_via) values ($1, $2, 'editor', 'added')`,
      [project, gone.user.id],
    );
    const p = await propose(gone.client, 'left behind');
    ok(await commit(gone.client, p.draft_id, [addState('s_left', 'left')]));
    const removed = await t.owner.client
      .from('project_members')
      .delete()
      .eq('project_id', project)
      .eq('user_id', gone.user.id);
    expect(removed.error).toBeNull();

    expect((await commit(gone.client, p.draft_id, [addState('s_after', 'after')])).error?.code).toBe('P0002');
    expect((await call(gone.client, 'request_proposal_review', { p_proposal: p.id })).error?.code).toBe('PT404');
    expect((await gone.client.from('proposals').select('id').eq('id', p.id)).data).toEqual([]);
    expect((await gone.client.from('machine_ops').select('seq').eq('machine_id', p.draft_id)).data).toEqual([]);

    expect((await t.viewer.client.from('proposals').select('title').eq('id', p.id)).data).toEqual([
      { title: 'left behind' },
    ]);
    const ops = await t.viewer.client.from('machine_ops').select('seq').eq('machine_id', p.draft_id);
    expect(ops.data).toHaveLength(2);
    // An owner may still close it.
    expect((ok(await call(t.owner.client, 'close_proposal', { p_proposal: p.id })) as ProposalRow).status).toBe(
      'closed',
    );
  });
});

import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, type Observable, of } from 'rxjs';
import type {
  Proposal,
  ProposalReview,
  ProposalsFact,
  ProposalsPort,
  ProposalsResult,
  ProposalStatus,
  ProposalVerdict,
} from '../../lib/ports/proposals.ts';
import { mergeOutcome, netChange } from '../../lib/proposals/merge.ts';
import { definitionAtSeq } from '../../lib/timeline/history.ts';
import type { AuthoredOp } from '../../lib/timeline/types.ts';
import type { Database, Tables } from './database.types.ts';
import { tableChanges } from './realtime.ts';
import { createTimelineAdapter } from './timeline.ts';

/**
 * Proposals over Supabase: `proposals` and `proposal_reviews` rows (RLS: readers of the
 * project read), every step a database function (propose_change, request_proposal_review,
 * review_proposal, merge_proposal, close_proposal, invite_to_proposal) that checks who may take it, one
 * channel of postgres changes `proposals:<machine>`, and both logs read and folded the
 * way the timeline does to compute what a proposal changes.
 */

type Client = SupabaseClient<Database>;

export const toProposal = (row: Tables<'proposals'>): Proposal => ({
  id: row.id,
  machineId: row.machine_id,
  draftId: row.draft_id,
  title: row.title,
  author: row.author,
  collaborators: row.collaborators,
  baseSeq: row.base_seq,
  status: row.status as ProposalStatus,
  mergedBy: row.merged_by,
  mergedAt: row.merged_at,
  mergedFirstSeq: row.merged_first_seq,
  mergedLastSeq: row.merged_last_seq,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toReview = (row: Tables<'proposal_reviews'>): ProposalReview => ({
  id: row.id,
  proposalId: row.proposal_id,
  reviewer: row.reviewer,
  verdict: row.verdict as ProposalVerdict,
  createdAt: row.created_at,
});

/** The server's words are meant for people (the migration says each); the rest by SQLSTATE. */
function failed<T>(action: string, error: unknown): ProposalsResult<T> {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: string; message?: string };
  if (error instanceof TypeError || !e.code)
    return { ok: false, error: { code: 'network', message: `Couldn't ${action}: can't reach the server.` } };
  if (['42501', '22023', 'PT404', 'PT409', 'P0002', '54000'].includes(e.code)) {
    const message = e.message ?? '';
    return {
      ok: false,
      error: { code: e.code, message: `Couldn't ${action}: ${message}.` },
    };
  }
  return { ok: false, error: { code: e.code, message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` } };
}

async function attempt<T>(action: string, call: () => Promise<ProposalsResult<T>>): Promise<ProposalsResult<T>> {
  try {
    return await call();
  } catch (error) {
    return failed(action, error);
  }
}

const headOf = (ops: readonly AuthoredOp[]): number => ops[ops.length - 1]?.seq ?? 0;
const incomplete = { ok: false as const, error: { code: 'not_found', message: 'The edit history is incomplete.' } };

export function createProposalsAdapter(client: Client): ProposalsPort {
  const timeline = createTimelineAdapter(client);
  const step = (action: string, fn: string, args: Record<string, unknown>) =>
    attempt<Proposal>(action, async () => {
      const { data, error } = await client.rpc(fn as 'request_proposal_review', args as never);
      return error ? failed(action, error) : { ok: true, value: toProposal(data) };
    });
  /** Both logs, and the target at the base, the draft now and the target now. */
  const sides = async (p: Proposal) => {
    const [target, draft] = await Promise.all([timeline.opsSince(p.machineId, 0), timeline.opsSince(p.draftId, 0)]);
    if (!target.ok) return target;
    if (!draft.ok) return draft;
    const base = definitionAtSeq(target.value, p.baseSeq);
    const now = definitionAtSeq(target.value, headOf(target.value));
    const drafted = definitionAtSeq(draft.value, headOf(draft.value));
    if (!base || !now || !drafted) return incomplete;
    return { ok: true as const, value: { targetOps: target.value, base, now, drafted } };
  };
  /** How a merged proposal's batch landed: the target before it, after it, and what did not land. */
  const landed = (ops: readonly AuthoredOp[], p: Proposal) => {
    if (p.mergedFirstSeq === null || p.mergedLastSeq === null) {
      const now = definitionAtSeq(ops, headOf(ops));
      return now ? { before: now, after: now, notApplied: [] } : null;
    }
    const before = definitionAtSeq(ops, p.mergedFirstSeq - 1);
    if (!before) return null;
    const batch = ops.filter((o) => o.seq >= p.mergedFirstSeq! && o.seq <= p.mergedLastSeq!).map((o) => o.op);
    const outcome = mergeOutcome(before, batch);
    return { before, after: outcome.definition, notApplied: outcome.notApplied };
  };
  return {
    list: (machineId) =>
      attempt('list the proposals', async () => {
        const { data, error } = await client
          .from('proposals')
          .select('*')
          .eq('machine_id', machineId)
          .order('created_at', { ascending: false });
        return error ? failed('list the proposals', error) : { ok: true, value: data.map(toProposal) };
      }),

    ofDraft: (machineId) =>
      attempt('read the proposal', async () => {
        const { data, error } = await client.from('proposals').select('*').eq('draft_id', machineId).maybeSingle();
        if (error) return failed('read the proposal', error);
        return { ok: true, value: data ? toProposal(data) : null };
      }),

    reviews: (proposalId) =>
      attempt('read the reviews', async () => {
        const { data, error } = await client
          .from('proposal_reviews')
          .select('*')
          .eq('proposal_id', proposalId)
          .order('created_at');
        return error ? failed('read the reviews', error) : { ok: true, value: data.map(toReview) };
      }),

    propose: (r) =>
      step('propose a change', 'propose_change', {
        p_machine: r.machineId,
        p_title: r.title,
        p_definition: r.definition,
        p_base_seq: r.baseSeq,
      }),
    requestReview: (id) => step('request review', 'request_proposal_review', { p_proposal: id }),
    review: (id, verdict) =>
      step(verdict === 'approved' ? 'approve' : 'request changes', 'review_proposal', {
        p_proposal: id,
        p_verdict: verdict,
      }),
    close: (id) => step('close the proposal', 'close_proposal', { p_proposal: id }),
    invite: (id, userId) => step('invite them', 'invite_to_proposal', { p_proposal: id, p_user: userId }),

    change: (p) =>
      attempt('read what the proposal changes', async () => {
        if (p.status === 'merged') {
          const target = await timeline.opsSince(p.machineId, 0);
          if (!target.ok) return target;
          const done = landed(target.value, p);
          return done ? { ok: true, value: done } : incomplete;
        }
        const read = await sides(p);
        if (!read.ok) return read;
        const { base, now, drafted } = read.value;
        const outcome = mergeOutcome(now, netChange(base, drafted, now));
        return { ok: true, value: { before: now, after: outcome.definition, notApplied: outcome.notApplied } };
      }),

    merge: (p) =>
      attempt('merge', async () => {
        const read = await sides(p);
        if (!read.ok) return read;
        const ops = netChange(read.value.base, read.value.drafted, read.value.now);
        const { data, error } = await client.rpc('merge_proposal', {
          p_proposal: p.id,
          p_batch_id: crypto.randomUUID(),
          p_ops: ops as never,
        });
        if (error) return failed('merge', error);
        const merged = toProposal(data);
        // The log up to the merge's batch: what was there, and the batch as it landed.
        const seen = read.value.targetOps;
        const more = await timeline.opsSince(p.machineId, headOf(seen));
        if (!more.ok) return more;
        const done = landed([...seen, ...more.value], merged);
        return done ? { ok: true, value: { proposal: merged, notApplied: done.notApplied } } : incomplete;
      }),

    changes$: (machineId) => proposalEvents(client, machineId),
  };
}

/** A machine's proposals as they change (new ones, steps, merges), and the proposal it is the draft of. */
export function proposalEvents(client: Client, machineId: string): Observable<ProposalsFact> {
  // The proposals to this machine, and the one this machine is the draft of.
  return tableChanges(client, `proposals:${machineId}`, [
    { table: 'proposals', filter: `machine_id=eq.${machineId}` },
    { table: 'proposals', filter: `draft_id=eq.${machineId}` },
  ]).pipe(
    concatMap((fact): Observable<ProposalsFact> => {
      if (fact.type === 'status') {
        if (fact.status === 'subscribed') return of({ type: 'proposals.subscribed' });
        return fact.status === 'closed' || fact.status === 'errored' ? of({ type: 'proposals.lost' }) : EMPTY;
      }
      if (fact.type !== 'change' || fact.change.kind === 'delete') return EMPTY;
      return of({ type: 'proposals.changed', proposal: toProposal(fact.change.row) });
    }),
  );
}

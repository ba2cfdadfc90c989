import type { Observable } from 'rxjs';
import type { MachineDefinition } from '../model/types.ts';
import type { NotApplied } from '../proposals/merge.ts';

/**
 * The proposals port: changes to a machine drafted on the side (`proposals` rows, each
 * with a draft machine), reviewed and merged. Every step is a database function that
 * states its own rules (supabase/migrations/20261127000700_proposals.sql); the merge's
 * ops are computed here on the client (src/lib/proposals/merge.ts). Implemented by
 * src/adapters/supabase/proposals.ts. Calls resolve to results, never throw.
 */

export type ProposalStatus = 'draft' | 'in_review' | 'changes_requested' | 'approved' | 'merged' | 'closed';
export type ProposalVerdict = 'approved' | 'changes_requested';

export interface Proposal {
  id: string;
  /** The machine it proposes a change to. */
  machineId: string;
  /** Its draft: a machine of its own. */
  draftId: string;
  title: string;
  author: string | null;
  collaborators: string[];
  /** The target's log position the draft was forked at. */
  baseSeq: number;
  status: ProposalStatus;
  mergedBy: string | null;
  mergedAt: string | null;
  /** The merge's batch in the target's log (null when it changed nothing or is not merged). */
  mergedFirstSeq: number | null;
  mergedLastSeq: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProposalReview {
  id: string;
  proposalId: string;
  reviewer: string | null;
  verdict: ProposalVerdict;
  createdAt: string;
}

export interface ProposalsError {
  code: string;
  message: string;
}

export type ProposalsResult<T> = { ok: true; value: T } | { ok: false; error: ProposalsError };

/**
 * What a proposal changes, as of now: `before` is the machine now (or, once merged, just
 * before its merge) and `after` is `before` with the proposal's net change landed;
 * `notApplied` lists the parts that do not (or did not) land as written.
 */
export interface ProposalChange {
  before: MachineDefinition;
  after: MachineDefinition;
  notApplied: NotApplied[];
}

/** Facts from the proposals' channel, past tense. */
export type ProposalsFact =
  { type: 'proposals.changed'; proposal: Proposal } | { type: 'proposals.subscribed' } | { type: 'proposals.lost' };

export interface ProposalsPort {
  /** The proposals to a machine, newest first. */
  list(machineId: string): Promise<ProposalsResult<Proposal[]>>;
  /** The proposal whose draft `machineId` is, or null when it is no draft. */
  ofDraft(machineId: string): Promise<ProposalsResult<Proposal | null>>;
  reviews(proposalId: string): Promise<ProposalsResult<ProposalReview[]>>;
  /** Forks `machineId` as `definition` (its definition after op `baseSeq`) into a draft. */
  propose(r: {
    machineId: string;
    title: string;
    definition: MachineDefinition;
    baseSeq: number;
  }): Promise<ProposalsResult<Proposal>>;
  requestReview(proposalId: string): Promise<ProposalsResult<Proposal>>;
  review(proposalId: string, verdict: ProposalVerdict): Promise<ProposalsResult<Proposal>>;
  close(proposalId: string): Promise<ProposalsResult<Proposal>>;
  /** The author invites an owner or editor of the project to edit the draft with them. */
  invite(proposalId: string, userId: string): Promise<ProposalsResult<Proposal>>;
  /** What the proposal changes (read from both logs). */
  change(proposal: Proposal): Promise<ProposalsResult<ProposalChange>>;
  /** Merges its net change into the target at the head; answers the merged proposal and what did not land. */
  merge(proposal: Proposal): Promise<ProposalsResult<{ proposal: Proposal; notApplied: NotApplied[] }>>;
  changes$(machineId: string): Observable<ProposalsFact>;
}

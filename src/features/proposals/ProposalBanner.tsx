import { ProposalsAlert } from './ProposalsAlert.tsx';
import { useMachineName } from '../machines/machine-list-context.ts';
import { useMembers, useMyRole, useProjectId } from '../room/room-context.ts';
import { CloseProposal, mayClose } from './CloseProposal.tsx';
import { DraftInvite } from './DraftInvite.tsx';
import { useCurrentUser } from '../session/session-context.ts';
import {
  STATUS_TEXT,
  useDraftOf,
  useProposalsBusy,
  useProposalsError,
  useProposalsRef,
} from './proposals-selectors.ts';

/**
 * On a proposal's draft: what it proposes a change to, who edits it, its status, Request
 * review and Invite for its author (review from a draft, or after changes were
 * requested), and Close for its author, owners and editors. Reviews happen on the
 * machine's Proposals panel; discussion in this draft's Comments.
 */
export function ProposalBanner() {
  const actor = useProposalsRef();
  const proposal = useDraftOf(actor);
  const busy = useProposalsBusy(actor);
  const error = useProposalsError(actor);
  const user = useCurrentUser();
  const projectId = useProjectId();
  const target = useMachineName(proposal?.machineId ?? '');
  const role = useMyRole();
  const members = useMembers();
  if (!actor || !proposal) return null;
  const mine = proposal.author === user?.id;
  const canAsk = mine && (proposal.status === 'draft' || proposal.status === 'changes_requested');
  const editable = mine || (user !== null && proposal.collaborators.includes(user.id));
  const live = proposal.status !== 'merged' && proposal.status !== 'closed';
  const invitees = proposal.collaborators
    .map((id) => members.find((m) => m.userId === id)?.name)
    .filter((name): name is string => name !== undefined);
  return (
    <section className="proposal-banner" role="region" aria-label="Proposal" data-status={proposal.status}>
      <div className="proposal-banner-text">
        <strong title={proposal.title}>{proposal.title}</strong>
        <span className="proposal-banner-meta">
          A proposed change to{' '}
          <a href={`/p/${projectId}/m/${proposal.machineId}`} title={target ?? undefined}>
            {target ?? 'the machine'}
          </a>
          {invitees.length > 0 ? ` · with ${invitees.join(', ')}` : ''}
          {editable && live ? '' : ' · read-only for you'}
        </span>
      </div>
      <span className="badge proposal-status" role="status" data-status={proposal.status}>
        {STATUS_TEXT[proposal.status]}
      </span>
      {canAsk && (
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => actor.send({ type: 'proposals.requestReview', id: proposal.id })}
        >
          Request review
        </button>
      )}
      {mine && live && <DraftInvite actor={actor} proposal={proposal} busy={busy} />}
      {mayClose(proposal, user?.id, role === 'owner' || role === 'editor') && (
        <CloseProposal actor={actor} proposal={proposal} busy={busy} />
      )}
      <ProposalsAlert actor={actor} error={error} />
    </section>
  );
}

import { ProposalsAlert } from './ProposalsAlert.tsx';
import { useMachineName } from '../machines/machine-list-context.ts';
import { useProjectId } from '../room/room-context.ts';
import { useCurrentUser } from '../session/session-context.ts';
import {
  STATUS_TEXT,
  useDraftOf,
  useProposalsBusy,
  useProposalsError,
  useProposalsRef,
} from './proposals-selectors.ts';

/**
 * On a proposal's draft: what it proposes a change to, its status, and Request review for
 * its author (from a draft, or after changes were requested). Reviews happen on the
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
  if (!actor || !proposal) return null;
  const mine = proposal.author === user?.id;
  const canAsk = mine && (proposal.status === 'draft' || proposal.status === 'changes_requested');
  const editable = mine || (user !== null && proposal.collaborators.includes(user.id));
  return (
    <section className="proposal-banner" role="region" aria-label="Proposal" data-status={proposal.status}>
      <div className="proposal-banner-text">
        <strong title={proposal.title}>{proposal.title}</strong>
        <span className="proposal-banner-meta">
          A proposed change to{' '}
          <a href={`/p/${projectId}/m/${proposal.machineId}`} title={target ?? undefined}>
            {target ?? 'the machine'}
          </a>
          {editable ? '' : ' · read-only for you'}
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
      <ProposalsAlert actor={actor} error={error} />
    </section>
  );
}

import { useState } from 'react';
import type { Proposal } from '../../lib/ports/proposals.ts';
import type { ProposalsActor } from './proposals-selectors.ts';

/**
 * Close a proposal (its author, owners and editors; not once merged or closed): asked
 * once more, since a closed proposal's draft no longer changes and it is not merged.
 */
export function CloseProposal({ actor, proposal, busy }: { actor: ProposalsActor; proposal: Proposal; busy: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" disabled={busy} onClick={() => setAsking(true)}>
        Close
      </button>
    );
  return (
    <span className="pr-close-ask" role="group" aria-label="Close the proposal?">
      <span>Close it? Its draft stops changing.</span>
      <button
        type="button"
        className="pr-close-confirm"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          actor.send({ type: 'proposals.close', id: proposal.id });
        }}
      >
        Close proposal
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}

/** Whether `role`/`userId` may close `p` (the database says so too: close_proposal). */
export const mayClose = (p: Proposal, userId: string | undefined, editor: boolean): boolean =>
  p.status !== 'merged' && p.status !== 'closed' && (editor || p.author === userId);

import type { ProposalsActor } from './proposals-selectors.ts';

/** A refused or failed proposals step in words, until dismissed. */
export function ProposalsAlert({ actor, error }: { actor: ProposalsActor; error: string | null }) {
  if (!error) return null;
  return (
    <p className="message error" role="alert">
      {error}{' '}
      <button type="button" className="link" onClick={() => actor.send({ type: 'proposals.dismissError' })}>
        Dismiss
      </button>
    </p>
  );
}

import type { Proposal } from '../../lib/ports/proposals.ts';
import { usePopover } from '../canvas/use-popover.ts';
import { useMembers } from '../room/room-context.ts';
import type { ProposalsActor } from './proposals-selectors.ts';

/**
 * The author's Invite on a draft's strip: the project's owners and editors not yet on the
 * draft, each with Invite (the database takes only them: viewers edit no draft), and
 * who already edits it. An invitee's page turns editable live (the proposal row changes).
 */
export function DraftInvite({ actor, proposal, busy }: { actor: ProposalsActor; proposal: Proposal; busy: boolean }) {
  const members = useMembers();
  const { open, setOpen, ref } = usePopover();
  const onDraft = new Set([proposal.author, ...proposal.collaborators]);
  const invitable = members.filter((m) => !onDraft.has(m.userId) && (m.role === 'owner' || m.role === 'editor'));
  const viewers = members.filter((m) => m.role === 'viewer').length;
  return (
    <div className="draft-invite" ref={ref}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls="draft-invite-form"
        title="Invite owners and editors of the project to edit this draft with you"
        onClick={() => setOpen((o) => !o)}
      >
        Invite
      </button>
      {open && (
        <section id="draft-invite-form" className="bar-popover draft-invite-form" aria-label="Invite to the draft">
          <p>People you invite edit this draft with you, live.</p>
          {invitable.length === 0 ? (
            <p className="draft-invite-none">Every owner and editor of the project is on this draft already.</p>
          ) : (
            <ul>
              {invitable.map((m) => (
                <li key={m.userId}>
                  <span className="draft-invite-name" title={m.name}>
                    {m.name}
                  </span>
                  <span className="draft-invite-role">{m.role}</span>
                  <button
                    type="button"
                    aria-label={`Invite ${m.name}`}
                    disabled={busy}
                    onClick={() => actor.send({ type: 'proposals.invite', id: proposal.id, userId: m.userId })}
                  >
                    Invite
                  </button>
                </li>
              ))}
            </ul>
          )}
          {viewers > 0 && (
            <p className="draft-invite-none">
              {viewers === 1 ? 'One viewer' : `${viewers} viewers`} can comment but not edit drafts.
            </p>
          )}
        </section>
      )}
    </div>
  );
}

import { useEffect, useRef, useState, type FormEvent } from 'react';
import { usePopover } from '../canvas/use-popover.ts';
import { navigate } from '../navigation/router.ts';
import {
  useCreatedProposal,
  useDraftOf,
  useProposalsBusy,
  useProposalsError,
  useProposalsRef,
} from './proposals-selectors.ts';

/**
 * Propose a change (in the machine bar, for owners and editors, not on a draft): asks for
 * a title, forks the machine as this person has it into a draft, and opens the draft.
 */
export function ProposeButton({ projectId }: { projectId: string }) {
  const actor = useProposalsRef();
  const draftOf = useDraftOf(actor);
  const busy = useProposalsBusy(actor);
  const error = useProposalsError(actor);
  const created = useCreatedProposal(actor);
  const { open, setOpen, ref } = usePopover();
  const [title, setTitle] = useState('');
  // A proposal made here: its draft is the page to work on.
  const opened = useRef<string | null>(null);
  useEffect(() => {
    if (created && opened.current !== created.id) {
      opened.current = created.id;
      navigate(`/p/${projectId}/m/${created.draftId}`);
    }
  }, [created, projectId]);
  if (!actor || draftOf) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'proposals.propose', title });
  };
  return (
    <div className="machine-propose" ref={ref}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls="machine-propose-form"
        aria-label="Propose a change"
        title="Propose a change: a draft of this machine to edit and send for review"
        onClick={() => {
          setTitle('');
          setOpen((o) => !o);
        }}
      >
        Propose
      </button>
      {open && (
        <form
          id="machine-propose-form"
          className="bar-popover machine-propose-form"
          aria-label="Propose a change"
          onSubmit={submit}
        >
          <p>A draft of this machine only you (and people you invite) edit. Request review when it is ready.</p>
          <label>
            Title
            <input
              value={title}
              maxLength={120}
              placeholder="Retry payment twice"
              autoFocus
              disabled={busy}
              onChange={(e) => setTitle(e.currentTarget.value)}
            />
          </label>
          {error && (
            <p className="message error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Forking…' : 'Start the draft'}
          </button>
        </form>
      )}
    </div>
  );
}

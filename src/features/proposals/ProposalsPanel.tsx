import { timeAgo } from '../../lib/relative-time.ts';
import type { Proposal } from '../../lib/ports/proposals.ts';
import type { NotApplied } from '../../lib/proposals/merge.ts';
import { useMembers, useMyRole, useProjectId } from '../room/room-context.ts';
import { useCurrentUser } from '../session/session-context.ts';
import { useSelector } from '@xstate/react';
import { useBringIntoView } from '../canvas/bring-into-view.ts';
import { VersionView } from '../versions/VersionView.tsx';
import { useVersionLayout, useVersionsRef } from '../versions/versions-selectors.ts';
import {
  STATUS_TEXT,
  useLastMerge,
  useProposals,
  useProposalsBusy,
  useProposalsError,
  useProposalsLoading,
  useProposalsRef,
  useProposalView,
  useDiscussionRef,
  useReadingProposal,
  type ProposalsActor,
} from './proposals-selectors.ts';
import { ProposalsAlert } from './ProposalsAlert.tsx';
import { CloseProposal, mayClose } from './CloseProposal.tsx';
import { ProposalDiscussion } from './ProposalDiscussion.tsx';
import './proposals.css';

/** The Proposals side panel, where the open machine has a proposals child and is no draft. */
export function ProposalsSlot() {
  const actor = useProposalsRef();
  return actor ? <ProposalsPanel actor={actor} /> : null;
}

/** What did not land, in words: the op and the model's reason. */
function NotAppliedList({ items }: { items: NotApplied[] }) {
  if (items.length === 0) return null;
  return (
    <section className="pr-not-applied" aria-label="Parts that no longer apply">
      <h4>
        {items.length} {items.length === 1 ? 'part no longer applies' : 'parts no longer apply'}
      </h4>
      <ul>
        {items.map((n) => (
          <li key={n.index}>
            <code>{n.op.type}</code> {n.reason}
            {n.mended ? ' (landed under a free name)' : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * A machine's proposals, live for everyone: each opens as its diff against the machine
 * now (drawn as the Versions panel draws a diff), with its reviews; owners and editors
 * other than its author Approve or Request changes, and owners and editors Merge one in
 * review or approved; its author, owners and editors Close one not merged. Its discussion
 * (the draft's comment threads, live) shows under the diff, where members of any role
 * reply, resolve and start threads.
 */
export function ProposalsPanel({ actor }: { actor: ProposalsActor }) {
  const proposals = useProposals(actor);
  const error = useProposalsError(actor);
  const loading = useProposalsLoading(actor);
  const busy = useProposalsBusy(actor);
  const reading = useReadingProposal(actor);
  const view = useProposalView(actor);
  const discussion = useDiscussionRef(actor);
  // The opened proposal's diff is drawn on the main canvas, held by the versions (as a version compared).
  const versions = useVersionsRef();
  const layout = useVersionLayout(versions ?? undefined);
  const selected = useSelector(versions ?? undefined, (s) => s?.context.selected ?? null);
  const bringIntoView = useBringIntoView();
  const chooseChange = (id: string | null) => {
    versions?.send({ type: 'versions.select', id });
    if (id !== null) bringIntoView(layout, id);
  };
  const lastMerge = useLastMerge(actor);
  const role = useMyRole();
  const user = useCurrentUser();
  const members = useMembers();
  const projectId = useProjectId();
  const editor = role === 'owner' || role === 'editor';
  const nameOf = (id: string | null) => members.find((m) => m.userId === id)?.name ?? 'Someone';
  const now = Date.now();
  const open = view?.proposal ? (proposals.find((p) => p.id === view.proposal.id) ?? view.proposal) : null;

  const actions = (p: Proposal) => {
    const reviewable =
      editor && p.author !== user?.id && ['in_review', 'approved', 'changes_requested'].includes(p.status);
    const mergeable = editor && (p.status === 'in_review' || p.status === 'approved');
    return (
      <div className="pr-actions">
        {reviewable && (
          <>
            <button
              type="button"
              disabled={busy || p.status === 'approved'}
              onClick={() => actor.send({ type: 'proposals.review', id: p.id, verdict: 'approved' })}
            >
              Approve
            </button>
            <button
              type="button"
              disabled={busy || p.status === 'changes_requested'}
              onClick={() => actor.send({ type: 'proposals.review', id: p.id, verdict: 'changes_requested' })}
            >
              Request changes
            </button>
          </>
        )}
        {mergeable && (
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => actor.send({ type: 'proposals.merge', id: p.id })}
          >
            {busy ? 'Working…' : 'Merge'}
          </button>
        )}
        <a className="button" href={`/p/${projectId}/m/${p.draftId}`}>
          Open draft
        </a>
        {mayClose(p, user?.id, editor) && <CloseProposal actor={actor} proposal={p} busy={busy} />}
      </div>
    );
  };

  return (
    <section className="pr-panel" role="region" aria-label="Proposals">
      <header className="pr-head">
        <h2>Proposals</h2>
        <span className="pr-count" role="status">
          {loading ? 'loading…' : `${proposals.length} ${proposals.length === 1 ? 'proposal' : 'proposals'}`}
          {reading ? ' · reading…' : ''}
        </span>
      </header>
      <ProposalsAlert actor={actor} error={error} />
      {open && view && (
        <article className="pr-open" aria-label={`Proposal ${open.title}`}>
          <p className="pr-open-status">
            <span className="badge proposal-status" data-status={open.status}>
              {STATUS_TEXT[open.status]}
            </span>{' '}
            {open.status === 'merged'
              ? `Merged by ${nameOf(open.mergedBy)}${open.mergedAt ? ` · ${timeAgo(open.mergedAt, now)}` : ''}${
                  open.mergedFirstSeq !== null ? ` · edits ${open.mergedFirstSeq}–${open.mergedLastSeq}` : ''
                }`
              : `By ${nameOf(open.author)} · what merging would change now`}
          </p>
          {actions(open)}
          {view.reviews.length > 0 && (
            <ul className="pr-reviews" aria-label="Reviews">
              {view.reviews.map((r) => (
                <li key={r.id} data-verdict={r.verdict}>
                  {nameOf(r.reviewer)} {r.verdict === 'approved' ? 'approved' : 'requested changes'} ·{' '}
                  {timeAgo(r.createdAt, now)}
                </li>
              ))}
            </ul>
          )}
          <NotAppliedList items={view.change.notApplied} />
          <VersionView
            view={{
              kind: 'compare',
              version: null,
              against: null,
              label: `${open.title} → now`,
              definition: view.diff.union,
              diff: view.diff,
            }}
            selected={selected}
            canEdit={false}
            onSelect={chooseChange}
            onRestore={() => undefined}
            onClose={() => actor.send({ type: 'proposals.hide' })}
          />
          {discussion && (
            <ProposalDiscussion
              discussion={discussion}
              chart={view.change.after}
              draftHref={`/p/${projectId}/m/${open.draftId}`}
            />
          )}
        </article>
      )}
      {lastMerge && lastMerge.notApplied.length > 0 && lastMerge.proposal.id !== open?.id && (
        <NotAppliedList items={lastMerge.notApplied} />
      )}
      {!loading && proposals.length === 0 && (
        <p className="pr-empty">No proposals yet. {editor ? 'Propose a change from the bar above.' : ''}</p>
      )}
      <ol className="vs-list">
        {proposals.map((p) => (
          <li key={p.id}>
            <article className="vs-item pr-item" aria-label={p.title} data-open={open?.id === p.id || undefined}>
              <div className="vs-item-text">
                <strong className="vs-item-name" title={p.title}>
                  {p.title}
                </strong>
                <span className="vs-item-meta">
                  {nameOf(p.author)} · {timeAgo(p.updatedAt, now)}
                </span>
              </div>
              <span className="badge proposal-status" data-status={p.status}>
                {STATUS_TEXT[p.status]}
              </span>
              <button type="button" onClick={() => actor.send({ type: 'proposals.open', id: p.id })}>
                Open
              </button>
            </article>
          </li>
        ))}
      </ol>
    </section>
  );
}

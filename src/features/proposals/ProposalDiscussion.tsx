import type { ProposalDiscussion as Discussion } from '../../../machines/open-machine/proposals.machine.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { commentsOf, placeAnchor } from '../../lib/comments/threads.ts';
import { timeAgo } from '../../lib/relative-time.ts';
import { Markdown } from '../comments/Markdown.tsx';
import '../comments/comments.css';

/**
 * An opened proposal's discussion, for everyone who reads the project: its draft's comment
 * threads, open first, each with where it hangs (on the proposal's chart) and its
 * comments. Replies are written on the draft (its Comments panel), linked from here.
 */
export function ProposalDiscussion({
  discussion,
  chart,
  draftHref,
  nameOf,
  now,
}: {
  discussion: Discussion;
  chart: MachineDefinition;
  draftHref: string;
  nameOf: (id: string | null) => string;
  now: number;
}) {
  const threads = [...discussion.threads].sort(
    (a, b) => Number(a.resolvedAt !== null) - Number(b.resolvedAt !== null) || b.createdAt.localeCompare(a.createdAt),
  );
  const open = threads.filter((t) => t.resolvedAt === null).length;
  return (
    <section className="pr-discussion" aria-label="Discussion">
      <h4>
        Discussion{' '}
        <span className="pr-discussion-count">
          {threads.length === 0
            ? 'no threads yet'
            : `${threads.length} ${threads.length === 1 ? 'thread' : 'threads'}, ${open} open`}
        </span>
      </h4>
      {threads.map((t) => (
        <article
          key={t.id}
          className="cm-thread"
          aria-label={`Thread on ${placeAnchor(chart, t.anchor).label}`}
          data-resolved={t.resolvedAt !== null || undefined}
        >
          <p className="cm-anchor">
            On {placeAnchor(chart, t.anchor).label}
            {t.resolvedAt !== null && <span className="badge">Resolved</span>}
          </p>
          <ol className="cm-comments">
            {commentsOf(discussion.comments, t.id).map((c) => (
              <li key={c.id} className={c.deletedAt !== null ? 'cm-comment deleted' : 'cm-comment'}>
                {c.deletedAt !== null ? (
                  <p className="cm-note">{nameOf(c.author)} deleted a comment.</p>
                ) : (
                  <>
                    <p className="cm-meta">
                      <strong>{nameOf(c.author)}</strong>{' '}
                      <time dateTime={c.createdAt}>{timeAgo(c.createdAt, now)}</time>
                    </p>
                    <Markdown body={c.body} />
                  </>
                )}
              </li>
            ))}
          </ol>
        </article>
      ))}
      <a className="pr-discussion-link" href={draftHref}>
        Reply or start a thread on the draft
      </a>
    </section>
  );
}

import { useCallback, useMemo, useState } from 'react';
import { entryKeyOf, stepOf } from '../../lib/comments/history-anchors.ts';
import { commentsOf, type PlacedAnchor } from '../../lib/comments/threads.ts';
import type { Comment, CommentAnchor, CommentThread } from '../../lib/ports/comments.ts';
import type { TimelineEntry } from '../../lib/timeline/index.ts';
import { useBringIntoView } from '../canvas/bring-into-view.ts';
import { useCanvasSend, useLayout } from '../canvas/open-machine-context.ts';
import { useMembers, type MemberView } from '../room/room-context.ts';
import { pinBox, pointOf } from './CommentPins.tsx';
import { Composer, type Mentionable } from './Composer.tsx';
import {
  useCanComment,
  useCommentsBusy,
  useCommentsSend,
  useCommentsUser,
  useGoToHistoryAnchor,
  useOpenRun,
  useThreadComments,
} from './comments-selectors.ts';
import { Markdown } from './Markdown.tsx';
import './comments.css';

/**
 * One comment thread as the Comments panel and a proposal's discussion show it: where it
 * hangs, its comments (the author's own with Edit and Delete), Reply, and Resolve or
 * Reopen for members; what it sends goes to the comments machine in scope
 * (`useCommentsSend`). Also the composer of a new thread, and a comments machine's error.
 */

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The thread being started (the machine's `composing`): Comment sends its first comment, Cancel drops it. */
export function NewThread({ on, members, busy }: { on: string; members: readonly Mentionable[]; busy: boolean }) {
  const send = useCommentsSend();
  return (
    <div className="cm-new">
      <p className="cm-anchor">New thread on {on}</p>
      <Composer
        label="New comment"
        submit="Comment"
        members={members}
        busy={busy}
        onSubmit={(body, mentions) => send({ type: 'comments.start', body, mentions })}
        onCancel={() => send({ type: 'comments.cancelCompose' })}
      />
    </div>
  );
}

/** The project's members by id, and those this person may mention (everyone else). */
export function useCommentPeople(): { people: Map<string, MemberView>; mentionable: Mentionable[] } {
  const members = useMembers();
  return useMemo(
    () => ({
      people: new Map(members.map((m) => [m.userId, m])),
      mentionable: members.filter((m) => !m.isMe).map((m) => ({ userId: m.userId, name: m.name })),
    }),
    [members],
  );
}

/** Threads, each with its comments, where each hangs (`place`), and the one brought forward last. */
export function Threads({
  threads,
  place,
  entries,
  focused = null,
}: {
  threads: readonly CommentThread[];
  place: (anchor: CommentAnchor) => PlacedAnchor;
  entries: readonly TimelineEntry[];
  focused?: { threadId: string; times: number } | null;
}) {
  const userId = useCommentsUser();
  const comments = useThreadComments();
  const canComment = useCanComment();
  const busy = useCommentsBusy();
  const { people, mentionable } = useCommentPeople();
  return (
    <div className="cm-threads">
      {threads.map((t) => (
        <Thread
          key={t.id}
          thread={t}
          comments={commentsOf(comments, t.id)}
          place={place(t.anchor)}
          entries={entries}
          people={people}
          mentionable={mentionable}
          userId={userId}
          canComment={canComment}
          busy={busy}
          focus={focused?.threadId === t.id ? focused.times : null}
        />
      ))}
    </div>
  );
}

/** A refusal or failure of the comments machine in scope, with Dismiss. */
export function CommentsAlert({ error }: { error: string | null }) {
  const send = useCommentsSend();
  if (!error) return null;
  return (
    <p className="message error" role="alert">
      {error}{' '}
      <button type="button" className="link" onClick={() => send({ type: 'comments.dismissError' })}>
        Dismiss
      </button>
    </p>
  );
}

function Thread({
  thread,
  comments,
  place,
  entries,
  people,
  mentionable,
  userId,
  canComment,
  busy,
  focus,
}: {
  thread: CommentThread;
  comments: Comment[];
  place: PlacedAnchor;
  entries: readonly TimelineEntry[];
  people: Map<string, MemberView>;
  mentionable: Mentionable[];
  userId: string;
  canComment: boolean;
  busy: boolean;
  /** Brought forward (its pin chosen): scrolled to and focused, again each time (the count); null: not. */
  focus: number | null;
}) {
  const send = useCommentsSend();
  const [replying, setReplying] = useState(false);
  const layout = useLayout();
  const canvasSend = useCanvasSend();
  const bringIntoView = useBringIntoView();
  // A new callback each time the thread is brought forward, so React calls it again.
  const focusRef = useCallback(
    (el: HTMLElement | null) => {
      if (!el || focus === null) return;
      el.scrollIntoView({ block: 'nearest' });
      el.focus({ preventScroll: true });
    },
    [focus],
  );
  // A state or transition is selected and framed; a point (nothing to select), its pin framed.
  const point = thread.anchor.kind === 'point' ? pointOf(thread.anchor.value) : null;
  const onCanvas = point !== null || (place.key !== null && ['state', 'transition'].includes(thread.anchor.kind));
  const showOnCanvas = () => {
    if (point) return canvasSend({ type: 'canvas.frame', box: pinBox(point) });
    canvasSend({ type: 'canvas.select', id: thread.anchor.value, additive: false });
    bringIntoView(layout, thread.anchor.value);
  };
  const openEntry = useGoToHistoryAnchor();
  const openRun = useOpenRun();
  // An edit is gone to in the Timeline; a step, in the Simulation panel when its run is the one open there.
  const entryKey =
    thread.anchor.kind === 'step' && stepOf(thread.anchor.value)?.simulationId !== openRun
      ? null
      : entryKeyOf(entries, thread.anchor);
  const resolved = thread.resolvedAt !== null;
  const first = comments[0];
  const starter = first?.author ? (people.get(first.author)?.name ?? 'Someone') : 'Someone';
  return (
    <article
      ref={focus === null ? undefined : focusRef}
      tabIndex={-1}
      className="cm-thread"
      data-focused={focus !== null || undefined}
      aria-label={`Thread on ${place.label} by ${starter}`}
      data-thread-anchor={place.key ?? undefined}
      data-orphaned={place.orphaned || undefined}
      data-resolved={resolved || undefined}
    >
      <p className="cm-anchor">
        on {place.label}
        {place.orphaned && <span className="badge cm-orphan">Orphaned</span>}
        {resolved && <span className="badge">Resolved</span>}
        {onCanvas && (
          <button type="button" className="link cm-show" onClick={showOnCanvas}>
            Show on canvas
          </button>
        )}
        {entryKey !== null && (
          <button
            type="button"
            className="link cm-show"
            onClick={() => {
              openEntry(thread.anchor, entryKey);
              send({ type: 'comments.goToAnchor', anchor: thread.anchor });
            }}
          >
            {thread.anchor.kind === 'step' ? 'Show this step' : 'Show in timeline'}
          </button>
        )}
      </p>
      <ol className="cm-comments">
        {comments.map((c) => (
          <CommentItem
            key={c.id}
            comment={c}
            people={people}
            mentionable={mentionable}
            mine={c.author === userId && canComment}
            busy={busy}
          />
        ))}
      </ol>
      {replying && (
        <Composer
          label="Reply"
          submit="Send reply"
          members={mentionable}
          busy={busy}
          onSubmit={(body, mentions) => {
            send({ type: 'comments.reply', threadId: thread.id, body, mentions });
            setReplying(false);
          }}
          onCancel={() => setReplying(false)}
        />
      )}
      {canComment && (
        <div className="cm-actions">
          {!replying && (
            <button type="button" onClick={() => setReplying(true)}>
              Reply
            </button>
          )}
          <button
            type="button"
            disabled={busy}
            onClick={() => send({ type: resolved ? 'comments.reopen' : 'comments.resolve', threadId: thread.id })}
          >
            {resolved ? 'Reopen' : 'Resolve'}
          </button>
        </div>
      )}
    </article>
  );
}

function CommentItem({
  comment,
  people,
  mentionable,
  mine,
  busy,
}: {
  comment: Comment;
  people: Map<string, MemberView>;
  mentionable: Mentionable[];
  mine: boolean;
  busy: boolean;
}) {
  const send = useCommentsSend();
  const [editing, setEditing] = useState(false);
  const author = comment.author ? people.get(comment.author) : undefined;
  const name = author?.name ?? 'A former member';
  if (comment.deletedAt)
    return (
      <li className="cm-comment deleted">
        <p className="cm-note">{name} deleted a comment.</p>
      </li>
    );
  return (
    <li className="cm-comment">
      <p className="cm-meta">
        <span className="cm-dot" style={{ background: author?.color ?? '#978365' }} aria-hidden="true" />
        <strong>{name}</strong> <time dateTime={comment.createdAt}>{when(comment.createdAt)}</time>
        {comment.editedAt && <span className="cm-edited"> (edited)</span>}
      </p>
      {editing ? (
        <Composer
          label="Edit comment"
          submit="Save"
          initial={comment.body}
          members={mentionable}
          busy={busy}
          onSubmit={(body, mentions) => {
            send({ type: 'comments.edit', commentId: comment.id, body, mentions });
            setEditing(false);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <Markdown body={comment.body} />
      )}
      {mine && !editing && (
        <p className="cm-own">
          <button type="button" className="link" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button
            type="button"
            className="link"
            disabled={busy}
            onClick={() => send({ type: 'comments.delete', commentId: comment.id })}
          >
            Delete
          </button>
        </p>
      )}
    </li>
  );
}

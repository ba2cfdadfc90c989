import { useCallback, useMemo, useState } from 'react';
import { entryKeyOf, historyLabel, stepOf } from '../../lib/comments/history-anchors.ts';
import { commentsOf, filterThreads, placeAnchor, type PlacedAnchor } from '../../lib/comments/threads.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { Comment, CommentAnchor, CommentThread } from '../../lib/ports/comments.ts';
import type { TimelineEntry } from '../../lib/timeline/index.ts';
import { useBringIntoView } from '../canvas/bring-into-view.ts';
import { useCanvasSend, useDefinition, useLayout } from '../canvas/open-machine-context.ts';
import { useMembers, type MemberView } from '../room/room-context.ts';
import { Composer, type Mentionable } from './Composer.tsx';
import {
  useCanComment,
  useCommentsBusy,
  useCommentsError,
  useCommentsLoading,
  useCommentsSend,
  useCommentsShown,
  useCommentsUser,
  useComposing,
  useFocusedThread,
  useHistoryEntries,
  useMentionsMeOnly,
  useOpenRun,
  useGoToHistoryAnchor,
  useThreadComments,
  useThreads,
  useUnread,
} from './comments-selectors.ts';
import { Markdown } from './Markdown.tsx';
import './comments.css';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/**
 * The Comments panel: the machine's threads as articles (open or resolved, only those
 * mentioning this person, or one person's), each with its comments, Reply, and Resolve
 * or Reopen; the thread being started on the selection; a thread whose state or
 * transition is gone stays, marked orphaned. Looking at the panel marks what is new as read.
 */
export function CommentsPanel() {
  const definition = useDefinition();
  const members = useMembers();
  const threads = useThreads();
  const comments = useThreadComments();
  const composing = useComposing();
  const show = useCommentsShown();
  const mentionsMe = useMentionsMeOnly();
  const canComment = useCanComment();
  const busy = useCommentsBusy();
  const loading = useCommentsLoading();
  const error = useCommentsError();
  const userId = useCommentsUser();
  const { threads: unreadThreads } = useUnread();
  const send = useCommentsSend();
  const [person, setPerson] = useState<string | null>(null);
  // A thread brought forward (its pin chosen) shows whoever wrote it.
  const focused = useFocusedThread();
  const [focusSeen, setFocusSeen] = useState(focused);
  if (focused !== focusSeen) {
    setFocusSeen(focused);
    setPerson(null);
  }

  const people = useMemo(() => new Map(members.map((m) => [m.userId, m])), [members]);
  const entries = useHistoryEntries();
  const place = useCallback(
    (anchor: CommentAnchor) => placeOn(definition, entries, people, anchor),
    [definition, entries, people],
  );
  const mentionable: Mentionable[] = useMemo(
    () => members.filter((m) => !m.isMe).map((m) => ({ userId: m.userId, name: m.name })),
    [members],
  );
  const shown = filterThreads(threads, comments, { show, mentionsMe, person, userId });
  const open = threads.filter((t) => t.resolvedAt === null).length;
  const markRead = () => {
    if (unreadThreads > 0) send({ type: 'comments.markRead' });
  };

  return (
    <section className="cm-panel" role="region" aria-label="Comments" onPointerEnter={markRead} onFocus={markRead}>
      <header className="cm-head">
        <h2>Comments</h2>
        <div className="cm-filters" role="group" aria-label="Show">
          <button
            type="button"
            aria-pressed={show === 'open'}
            onClick={() => send({ type: 'comments.show', show: 'open' })}
          >
            Open ({open})
          </button>
          <button
            type="button"
            aria-pressed={show === 'resolved'}
            onClick={() => send({ type: 'comments.show', show: 'resolved' })}
          >
            Resolved ({threads.length - open})
          </button>
          <button type="button" aria-pressed={mentionsMe} onClick={() => send({ type: 'comments.toggleMentionsMe' })}>
            Mentions me
          </button>
          <select aria-label="Written by" value={person ?? ''} onChange={(e) => setPerson(e.target.value || null)}>
            <option value="">Anyone</option>
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.isMe ? `${m.name} (you)` : m.name}
              </option>
            ))}
          </select>
        </div>
      </header>
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => send({ type: 'comments.dismissError' })}>
            Dismiss
          </button>
        </p>
      )}
      {composing && (
        <div className="cm-new">
          <p className="cm-anchor">New thread on {place(composing).label}</p>
          <Composer
            label="New comment"
            submit="Comment"
            members={mentionable}
            busy={busy}
            onSubmit={(body, mentions) => send({ type: 'comments.start', body, mentions })}
            onCancel={() => send({ type: 'comments.cancelCompose' })}
          />
        </div>
      )}
      {!canComment && <p className="cm-note">Guests read comments; members write them.</p>}
      {loading && threads.length === 0 ? (
        <p className="cm-note" role="status">
          <span className="spinner" aria-hidden="true" /> Reading the comments…
        </p>
      ) : shown.length === 0 ? (
        <p className="cm-note">
          {show === 'resolved'
            ? 'No resolved threads.'
            : canComment
              ? 'No open threads. Select a state or a transition and press Comment.'
              : 'No open threads.'}
        </p>
      ) : (
        <div className="cm-threads">
          {shown.map((t) => (
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
      )}
    </section>
  );
}

/** Where a thread hangs: on the diagram (placeAnchor), or on the machine's history, named from the timeline. */
function placeOn(
  definition: MachineDefinition | null,
  entries: readonly TimelineEntry[],
  people: Map<string, MemberView>,
  anchor: CommentAnchor,
): PlacedAnchor {
  if (anchor.kind !== 'timeline' && anchor.kind !== 'step') return placeAnchor(definition, anchor);
  const nameOf = (id: string | null) => (id && people.get(id)?.name) || 'someone';
  return { key: null, label: historyLabel(entries, anchor, nameOf), orphaned: false };
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
  const showOnCanvas = () => {
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
        {place.key !== null && (thread.anchor.kind === 'state' || thread.anchor.kind === 'transition') && (
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

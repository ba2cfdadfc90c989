import { useCallback, useState } from 'react';
import { historyLabel } from '../../lib/comments/history-anchors.ts';
import { filterThreads, placeAnchor, type PlacedAnchor } from '../../lib/comments/threads.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { CommentAnchor } from '../../lib/ports/comments.ts';
import type { TimelineEntry } from '../../lib/timeline/index.ts';
import { useDefinition } from '../canvas/open-machine-context.ts';
import { useMembers, type MemberView } from '../room/room-context.ts';
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
  useThreadComments,
  useThreads,
  useUnread,
} from './comments-selectors.ts';
import { CommentsAlert, NewThread, Threads, useCommentPeople } from './Thread.tsx';
import './comments.css';

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

  const { people, mentionable } = useCommentPeople();
  const entries = useHistoryEntries();
  const place = useCallback(
    (anchor: CommentAnchor) => placeOn(definition, entries, people, anchor),
    [definition, entries, people],
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
      <CommentsAlert error={error} />
      {composing && <NewThread on={place(composing).label} members={mentionable} busy={busy} />}
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
        <Threads threads={shown} place={place} entries={entries} focused={focused} />
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

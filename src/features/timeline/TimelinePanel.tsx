import { useCallback, useMemo } from 'react';
import { filterEntries, peopleIn, TIMELINE_KINDS, type TimelineKind } from '../../lib/timeline/index.ts';
import { TimelineList, type Person } from './TimelineList.tsx';
import { TimelinePreview } from './TimelinePreview.tsx';
import {
  useTimelineEntries,
  useTimelineError,
  useTimelineFailed,
  useTimelineFilter,
  useTimelineLoading,
  usePreviewLayout,
  useTimelinePreview,
  type TimelineActor,
} from './timeline-selectors.ts';
import { useVersionMarks } from '../versions/versions-selectors.ts';
import { useMergeMarks } from '../proposals/index.ts';
import { anchorOfEntry, threadsByEntry } from '../../lib/comments/history-anchors.ts';
import type { TimelineEntry } from '../../lib/timeline/index.ts';
import { useCanComment, useCommentsSend, useThreads } from '../comments/comments-selectors.ts';
import './timeline.css';

interface Props {
  actor: TimelineActor;
  /** Names and colours of the project's people, by user id. */
  people: ReadonlyMap<string, Person>;
  /** Owners and editors may restore a version. */
  canEdit: boolean;
}

const KIND_LABEL: Record<TimelineKind, string> = {
  edit: 'Edits',
  simulation: 'Simulations',
  event: 'Events',
  joined: 'Joins',
};

/**
 * Everything that happened to this machine, live for everyone: edit batches in words
 * with their author, simulations started and their events, who joined. Filter by kind
 * and by person; click an edit to see the machine as it was then (time travel).
 */
export function TimelinePanel({ actor, people, canEdit }: Props) {
  const entries = useTimelineEntries(actor);
  const filter = useTimelineFilter(actor);
  const error = useTimelineError(actor);
  const failed = useTimelineFailed(actor);
  const loading = useTimelineLoading(actor);
  const preview = useTimelinePreview(actor);
  const layout = usePreviewLayout(actor);
  const shown = useMemo(() => filterEntries(entries, filter), [entries, filter]);
  const versionMarks = useVersionMarks(entries);
  const mergeMarks = useMergeMarks(entries);
  // Comment threads on edits and steps: a marker with their count on each entry, and Comment for members.
  const threads = useThreads();
  const threadMarks = useMemo(() => threadsByEntry(threads, entries), [threads, entries]);
  const canComment = useCanComment();
  const sendComments = useCommentsSend();
  const onComment = useCallback(
    (entry: TimelineEntry) => {
      const anchor = anchorOfEntry(entry);
      if (anchor) sendComments({ type: 'comments.compose', anchor });
    },
    [sendComments],
  );
  const onShowThread = useCallback(
    (threadId: string) => sendComments({ type: 'comments.focus', threadId }),
    [sendComments],
  );
  const persons = useMemo(() => peopleIn(entries), [entries]);
  const nameOf = useCallback((id: string | null) => (id && people.get(id)?.name) || 'Someone', [people]);
  const colorOf = useCallback((id: string | null) => (id && people.get(id)?.color) || '#978365', [people]);

  return (
    <section className="tl-panel" role="region" aria-label="Timeline">
      <header className="tl-head">
        <h2>Timeline</h2>
        <fieldset className="tl-kinds">
          <legend>Show only</legend>
          {TIMELINE_KINDS.map((kind) => (
            <label key={kind}>
              <input
                type="checkbox"
                checked={filter.kinds.includes(kind)}
                onChange={() => actor.send({ type: 'timeline.filter.toggle', kind })}
              />
              {KIND_LABEL[kind]}
            </label>
          ))}
        </fieldset>
        <label className="tl-person">
          Person{' '}
          <select
            value={filter.person ?? ''}
            onChange={(e) => actor.send({ type: 'timeline.filter.person', person: e.currentTarget.value || null })}
          >
            <option value="">Everyone</option>
            {persons.map((id) => (
              <option key={id} value={id}>
                {nameOf(id)}
              </option>
            ))}
          </select>
        </label>
        <span className="tl-count" role="status">
          {shown.length === entries.length
            ? `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`
            : `${shown.length} of ${entries.length}`}
          {loading ? ' · loading…' : ''}
        </span>
      </header>
      {error && (
        <p className="message error" role="alert">
          {error}
          {failed && (
            <>
              {' '}
              <button type="button" className="link" onClick={() => actor.send({ type: 'timeline.retry' })}>
                Try again
              </button>
            </>
          )}
        </p>
      )}
      {preview && (
        <TimelinePreview
          preview={preview}
          layout={layout}
          author={nameOf(preview.entry.person)}
          canEdit={canEdit}
          onRestore={() => actor.send({ type: 'timeline.restore' })}
          onClose={() => actor.send({ type: 'timeline.close' })}
        />
      )}
      <TimelineList
        entries={shown}
        nameOf={nameOf}
        colorOf={colorOf}
        openKey={preview?.entry.key ?? null}
        onOpen={(entry) => actor.send({ type: 'timeline.open', key: entry.key })}
        versionMarks={versionMarks}
        mergeMarks={mergeMarks}
        threadMarks={threadMarks}
        onComment={canComment ? onComment : undefined}
        onShowThread={onShowThread}
      />
    </section>
  );
}

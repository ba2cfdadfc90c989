import { memo, useLayoutEffect, useRef, useState } from 'react';
import type { ThreadMark } from '../../lib/comments/history-anchors.ts';
import { windowOf, type TimelineEntry } from '../../lib/timeline/index.ts';
import { EntryComments } from '../comments/EntryComments.tsx';

/** Each row's height in px (timeline.css keeps rows to one line). */
export const ROW = 28;

export interface Person {
  name: string;
  color: string;
}

interface Props {
  entries: readonly TimelineEntry[];
  nameOf: (userId: string | null) => string;
  colorOf: (userId: string | null) => string;
  /** The edit shown in time travel, if any. */
  openKey: string | null;
  onOpen: (entry: TimelineEntry) => void;
  /** Named versions, by the key of the edit entry whose ops include the edit each names. */
  versionMarks?: ReadonlyMap<string, string>;
  /** Each edit that merged a proposal: the proposal's title, by entry key. */
  mergeMarks?: ReadonlyMap<string, string>;
  /** Comment threads on each entry (by entry key): how many, and the first (its marker brings it forward). */
  threadMarks?: ReadonlyMap<string, ThreadMark>;
  /** Starts a thread on an edit or a step (members only: absent otherwise). */
  onComment?: ((entry: TimelineEntry) => void) | undefined;
  /** Brings a thread forward in the Comments panel (an entry's marker chosen). */
  onShowThread?: ((threadId: string) => void) | undefined;
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * The entries as a list that renders only the rows in view (plus a few either side):
 * a spacer as tall as every row keeps the scrollbar honest, and the rows shown sit at
 * their offset. Ten thousand entries cost the same to scroll as fifty. The list sticks to
 * the newest entry while scrolled to the end, so it reads live.
 */
export function TimelineList({
  entries,
  nameOf,
  colorOf,
  openKey,
  onOpen,
  versionMarks,
  mergeMarks,
  threadMarks,
  onComment,
  onShowThread,
}: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  // The first row in view, and the scroller's height: the list renders again only when
  // the window of rows moves, not on every pixel scrolled.
  const [first, setFirst] = useState(0);
  const [height, setHeight] = useState(320);
  const atEnd = useRef(true);
  // What the scroll handler reads, without asking the page for layout (no scrollHeight or
  // clientHeight in it: each would force a layout per scroll event).
  const known = useRef({ count: entries.length, height });
  known.current = { count: entries.length, height };

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // A list that was hidden (a closed panel) when entries came could not scroll: once it
    // has a height again, a list that sticks to the end goes there.
    const measure = () => {
      const shown = el.clientHeight;
      setHeight(shown);
      known.current = { ...known.current, height: shown };
      if (atEnd.current && shown > 0) el.scrollTop = el.scrollHeight;
    };
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(el);
    return () => observer?.disconnect();
  }, []);

  // New entries while at the end: stay at the end (the browser clamps to the last row).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atEnd.current) el.scrollTop = entries.length * ROW;
  }, [entries.length]);

  // An entry opened from elsewhere (a comment's anchor) is scrolled into view.
  useLayoutEffect(() => {
    const el = scroller.current;
    const at = openKey === null ? -1 : entries.findIndex((e) => e.key === openKey);
    if (!el || at < 0) return;
    const top = at * ROW;
    if (top < el.scrollTop || top + ROW > el.scrollTop + el.clientHeight) {
      atEnd.current = false;
      el.scrollTop = Math.max(0, top - ROW);
    }
    // Only when the entry opened changes, not on every new entry.
  }, [openKey]);

  const { start, end } = windowOf(entries.length, ROW, first * ROW, height);
  const rows = entries.slice(start, end);
  return (
    <div
      className="tl-scroll"
      ref={scroller}
      data-testid="timeline-scroll"
      onScroll={(e) => {
        const top = e.currentTarget.scrollTop;
        const { count, height: shown } = known.current;
        atEnd.current = top + shown >= count * ROW - ROW;
        setFirst(Math.floor(top / ROW));
      }}
    >
      <ul className="tl-list" style={{ height: entries.length * ROW }} aria-label="Timeline entries">
        {rows.map((entry, i) => (
          <Row
            key={entry.key}
            entry={entry}
            index={start + i}
            count={entries.length}
            open={entry.key === openKey}
            nameOf={nameOf}
            colorOf={colorOf}
            onOpen={onOpen}
            versions={versionMarks?.get(entry.key)}
            merged={mergeMarks?.get(entry.key)}
            threads={threadMarks?.get(entry.key)}
            onComment={onComment}
            onShowThread={onShowThread}
          />
        ))}
      </ul>
    </div>
  );
}

interface RowProps {
  entry: TimelineEntry;
  /** Its place in the list: where it sits (`index * ROW` px down) and what it announces. */
  index: number;
  count: number;
  open: boolean;
  nameOf: (userId: string | null) => string;
  colorOf: (userId: string | null) => string;
  onOpen: (entry: TimelineEntry) => void;
  /** The names of the versions saved at this edit, if any. */
  versions?: string | undefined;
  /** The title of the proposal this edit merged, if it is a merge. */
  merged?: string | undefined;
  threads?: ThreadMark | undefined;
  onComment?: ((entry: TimelineEntry) => void) | undefined;
  onShowThread?: ((threadId: string) => void) | undefined;
}

/**
 * One row, placed by its own index: a row still in view after a scroll has the same props,
 * so it does not render again; only the rows scrolled in are new.
 */
const Row = memo(function Row({
  entry,
  index,
  count,
  open,
  nameOf,
  colorOf,
  onOpen,
  versions,
  merged,
  threads,
  onComment,
  onShowThread,
}: RowProps) {
  const commentable = entry.kind === 'edit' || entry.kind === 'event';
  return (
    <li
      className={`tl-entry tl-${entry.kind}${open ? ' is-open' : ''}`}
      style={{ transform: `translateY(${index * ROW}px)` }}
      aria-setsize={count}
      aria-posinset={index + 1}
      data-kind={entry.kind}
    >
      <span className="tl-dot" style={{ background: colorOf(entry.person) }} aria-hidden="true" />
      {entry.kind === 'edit' ? (
        <button type="button" className="tl-open" onClick={() => onOpen(entry)} title="Show this version">
          {nameOf(entry.person)} {merged !== undefined ? `merged “${merged}”: ` : ''}
          {entry.text}
        </button>
      ) : (
        <span className="tl-text">
          {nameOf(entry.person)} {entry.text}
        </span>
      )}
      {versions && (
        <span className="tl-version" title={`Version ${versions}`} data-version-mark={versions}>
          {versions}
        </span>
      )}
      <EntryComments
        mark={threads}
        onShow={onShowThread}
        onComment={commentable && onComment ? () => onComment(entry) : undefined}
        what={entry.kind === 'edit' ? 'this edit' : 'this step'}
        anchorKey={entry.key}
      />
      <time className="tl-time" dateTime={entry.at}>
        {clock.format(entry.time)}
      </time>
    </li>
  );
});

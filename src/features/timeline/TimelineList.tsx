import { memo, useLayoutEffect, useRef, useState } from 'react';
import { windowOf, type TimelineEntry } from '../../lib/timeline/index.ts';

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
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * The entries as a list that renders only the rows in view (plus a few either side):
 * a spacer as tall as every row keeps the scrollbar honest, and the rows shown sit at
 * their offset. Ten thousand entries cost the same to scroll as fifty. The list sticks to
 * the newest entry while scrolled to the end, so it reads live.
 */
export function TimelineList({ entries, nameOf, colorOf, openKey, onOpen }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 320 });
  const atEnd = useRef(true);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView({ top: el.scrollTop, height: el.clientHeight });
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(el);
    return () => observer?.disconnect();
  }, []);

  // New entries while at the end: stay at the end.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [entries.length]);

  const { start, end } = windowOf(entries.length, ROW, view.top, view.height);
  const rows = entries.slice(start, end);
  return (
    <div
      className="tl-scroll"
      ref={scroller}
      data-testid="timeline-scroll"
      onScroll={(e) => {
        const el = e.currentTarget;
        atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW;
        setView({ top: el.scrollTop, height: el.clientHeight });
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
}

/**
 * One row, placed by its own index: a row still in view after a scroll has the same props,
 * so it does not render again; only the rows scrolled in are new.
 */
const Row = memo(function Row({ entry, index, count, open, nameOf, colorOf, onOpen }: RowProps) {
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
          {nameOf(entry.person)} {entry.text}
        </button>
      ) : (
        <span className="tl-text">
          {nameOf(entry.person)} {entry.text}
        </span>
      )}
      <time className="tl-time" dateTime={entry.at}>
        {clock.format(entry.time)}
      </time>
    </li>
  );
});

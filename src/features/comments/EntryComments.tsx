import type { ThreadMark } from '../../lib/comments/history-anchors.ts';
import './comments.css';
import { CommentIcon } from './CommentIcon.tsx';

/**
 * On a timeline entry or a simulation step: a marker with the count of its comment threads
 * (chosen, it brings the first forward in the Comments panel) and Comment, which starts a
 * thread on it (members only: absent otherwise; shown on hover or focus where there is a pointer).
 */
export function EntryComments({
  mark,
  onShow,
  onComment,
  what,
  anchorKey,
}: {
  mark: ThreadMark | undefined;
  onShow: ((threadId: string) => void) | undefined;
  onComment: (() => void) | undefined;
  /** What it is, for the tooltip: "this edit", "this step". */
  what: string;
  /** The marker's `data-comment-anchor`. */
  anchorKey: string;
}) {
  return (
    <>
      {mark && onShow && (
        <button
          type="button"
          className="cm-entry-count"
          data-comment-anchor={anchorKey}
          aria-label={`${mark.count} comment ${mark.count === 1 ? 'thread' : 'threads'}`}
          title={`Show the comments on ${what}`}
          onClick={() => onShow(mark.first)}
        >
          {mark.count}
        </button>
      )}
      {onComment && (
        <button
          type="button"
          className="cm-entry-comment"
          aria-label="Comment"
          title={`Comment on ${what}`}
          onClick={onComment}
        >
          <CommentIcon />
        </button>
      )}
    </>
  );
}

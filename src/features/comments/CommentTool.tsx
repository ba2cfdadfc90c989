import { anchorOfSelection } from '../../lib/comments/threads.ts';
import { useDefinition, useSelection } from '../canvas/open-machine-context.ts';
import { useCanComment, useCommentsSend, useHasComments, usePlacing } from './comments-selectors.ts';
import { CommentIcon } from './CommentIcon.tsx';

/**
 * The toolbar's Comment button: starts a thread on the one selected state or transition
 * (the Comments panel opens with the new thread's text box); with nothing selected it turns
 * comment mode on (pressed), where a click on the canvas places a thread at that point
 * (CommentPlacer), and off again. Members only; guests read.
 */
export function CommentTool() {
  const has = useHasComments();
  const canComment = useCanComment();
  const definition = useDefinition();
  const selection = useSelection();
  const send = useCommentsSend();
  const placing = usePlacing();
  if (!has || !canComment) return null;
  const anchor = anchorOfSelection(definition, selection);
  return (
    <button
      type="button"
      aria-label="Comment"
      aria-pressed={anchor ? undefined : placing}
      title={
        anchor
          ? 'Comment on the selection'
          : 'Comment mode: click the canvas to place a comment there (or select a state or a transition)'
      }
      onClick={() =>
        send(
          anchor
            ? { type: 'comments.compose', anchor }
            : placing
              ? { type: 'comments.cancelPlace' }
              : { type: 'comments.place' },
        )
      }
    >
      <span className="tb-icon" aria-hidden="true">
        <CommentIcon />
      </span>
      <span className="tb-label" aria-hidden="true">
        Comment
      </span>
    </button>
  );
}

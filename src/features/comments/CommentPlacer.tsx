import type { MouseEvent } from 'react';
import { useViewport } from '../canvas/open-machine-context.ts';
import { useCommentsSend, usePlacing } from './comments-selectors.ts';

/**
 * Comment mode over the canvas (the toolbar's Comment pressed with nothing selected): a
 * layer that takes the next click and places a thread at that point in diagram units
 * (the screen point through the viewport's pan and zoom), so its pin stays on that spot of
 * the chart however it is moved. Escape or Cancel leaves comment mode.
 */
export function CommentPlacer() {
  const placing = usePlacing();
  const viewport = useViewport();
  const send = useCommentsSend();
  if (!placing) return null;
  const place = (e: MouseEvent<HTMLDivElement>) => {
    const svg = e.currentTarget.parentElement?.querySelector('.diagram-svg');
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    const x = Math.round((e.clientX - box.left - viewport.x) / viewport.zoom);
    const y = Math.round((e.clientY - box.top - viewport.y) / viewport.zoom);
    send({ type: 'comments.compose', anchor: { kind: 'point', value: `${x},${y}` } });
  };
  return (
    <div
      className="comment-placer"
      role="button"
      tabIndex={0}
      aria-label="Place a comment here"
      onClick={place}
      onKeyDown={(e) => e.key === 'Escape' && send({ type: 'comments.cancelPlace' })}
    >
      <p className="comment-placer-hint">
        Click the canvas to place a comment.{' '}
        <button
          type="button"
          onClick={(e) => {
            e.stopPropagation();
            send({ type: 'comments.cancelPlace' });
          }}
        >
          Cancel
        </button>
      </p>
    </div>
  );
}

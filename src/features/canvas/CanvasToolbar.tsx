import { useState } from 'react';
import type { CanvasIntent } from '../../../machines/open-machine/canvas.machine.ts';
import { randomIds } from '../../lib/model/ids.ts';
import { CommentTool } from '../comments/CommentTool.tsx';
import { EXAMPLE_NAMES } from './examples.ts';
import { FindForm } from './FindForm.tsx';
import type { Find } from './useFind.ts';

export interface CanvasToolbarProps {
  canEdit: boolean;
  /** The one selected state, if exactly one is. */
  one: string | undefined;
  selected: number;
  send: (intent: CanvasIntent) => void;
  onUndo: (() => void) | undefined;
  onRedo: (() => void) | undefined;
  zoom: number;
  onZoom: (factor: number) => void;
  onFit: () => void;
  find: Find;
  /** Loading an example; absent when this person may not. */
  onExample: ((name: string) => void) | undefined;
  /** A version or diff is shown instead of the live chart: only the view's tools (its banner says read-only). */
  reviewing?: boolean;
}

/**
 * A toolbar button that shows an icon and its name, or only the icon on a phone
 * (canvas.css hides `.tb-label`); its accessible name is the name either way.
 */
function Tool({
  name,
  icon,
  title,
  disabled,
  pressed,
  onClick,
}: {
  name: string;
  icon: string;
  title?: string;
  disabled?: boolean;
  pressed?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      aria-label={name}
      title={title ?? name}
      disabled={disabled}
      aria-pressed={pressed}
      onClick={onClick}
    >
      <span className="tb-icon" aria-hidden="true">
        {icon}
      </span>
      <span className="tb-label" aria-hidden="true">
        {name}
      </span>
    </button>
  );
}

/**
 * The machine page's tools, in its one bar: edit, undo, fit, then zoom, find and
 * examples. They show as icons (their names are their accessible names and titles); where
 * the bar is narrow the last group folds into a "More tools" popover (canvas.css).
 */
export function CanvasToolbar(p: CanvasToolbarProps) {
  const { canEdit, one, send } = p;
  const [more, setMore] = useState(false);
  return (
    <div className="canvas-toolbar" role="toolbar" aria-label="Diagram tools">
      {canEdit && (
        <>
          <Tool
            name="Add child"
            icon="↳"
            title="Add child state (Tab)"
            disabled={!one}
            onClick={() => send({ type: 'canvas.addChild', id: randomIds('state') })}
          />
          <Tool
            name="Add sibling"
            icon="⇣"
            title="Add sibling state (Shift+Enter)"
            disabled={!one}
            onClick={() => send({ type: 'canvas.addSibling', id: randomIds('state') })}
          />
          <Tool
            name="Rename"
            icon="✎"
            title="Rename (Enter or F2)"
            disabled={!one}
            onClick={() => one && send({ type: 'canvas.renameStart', id: one })}
          />
          <Tool
            name="Delete"
            icon="✕"
            title="Delete (Delete or Backspace)"
            disabled={p.selected === 0}
            onClick={() => send({ type: 'canvas.delete' })}
          />
          <span className="sep" />
          <button
            type="button"
            disabled={!p.onUndo}
            onClick={() => p.onUndo?.()}
            title="Undo (Ctrl/Cmd+Z)"
            aria-label="Undo"
          >
            ↶
          </button>
          <button
            type="button"
            disabled={!p.onRedo}
            onClick={() => p.onRedo?.()}
            title="Redo (Shift+Ctrl/Cmd+Z)"
            aria-label="Redo"
          >
            ↷
          </button>
          <span className="sep" />
        </>
      )}
      {!p.reviewing && <CommentTool />}
      <button type="button" onClick={p.onFit} aria-label="Zoom to fit" title="Zoom to fit (0)">
        Fit
      </button>
      <button
        type="button"
        className="tb-more-toggle"
        aria-label="More tools"
        aria-expanded={more}
        aria-controls="canvas-more-tools"
        onClick={() => setMore((m) => !m)}
      >
        ⋯
      </button>
      <div id="canvas-more-tools" className={more ? 'tb-more open' : 'tb-more'}>
        <span className="sep" />
        <button type="button" onClick={() => p.onZoom(1 / 1.2)} aria-label="Zoom out">
          −
        </button>
        <span className="zoom" aria-live="polite">
          {Math.round(p.zoom * 100)}%
        </span>
        <button type="button" onClick={() => p.onZoom(1.2)} aria-label="Zoom in">
          +
        </button>
        <FindForm find={p.find} />
        {p.onExample && (
          <select aria-label="Load example" value="" onChange={(e) => p.onExample?.(e.target.value)}>
            <option value="">Examples…</option>
            {EXAMPLE_NAMES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </div>
      {!canEdit && !p.reviewing && <span className="badge">View only</span>}
    </div>
  );
}

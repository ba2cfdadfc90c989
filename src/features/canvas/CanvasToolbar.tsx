import type { CanvasIntent } from '../../../machines/canvas.machine.ts';
import { randomIds } from '../../lib/model/ids.ts';
import { EXAMPLE_NAMES } from './examples.ts';
import { FindForm } from './FindForm.tsx';
import type { Find } from './useFind.ts';

export type CanvasPane = 'split' | 'diagram' | 'code';

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
  pane: CanvasPane;
  onPane: (pane: CanvasPane) => void;
  find: Find;
  /** Loading an example; absent when this person may not. */
  onExample: ((name: string) => void) | undefined;
}

/** The machine page's tools: edit, undo, zoom, which panes show, find, and examples. */
export function CanvasToolbar(p: CanvasToolbarProps) {
  const { canEdit, one, send } = p;
  return (
    <div className="canvas-toolbar" role="toolbar" aria-label="Diagram tools">
      {canEdit && (
        <>
          <button
            type="button"
            disabled={!one}
            onClick={() => send({ type: 'canvas.addChild', id: randomIds('state') })}
            title="Add child state (Tab)"
          >
            Add child
          </button>
          <button
            type="button"
            disabled={!one}
            onClick={() => send({ type: 'canvas.addSibling', id: randomIds('state') })}
            title="Add sibling state (Shift+Enter)"
          >
            Add sibling
          </button>
          <button
            type="button"
            disabled={!one}
            onClick={() => one && send({ type: 'canvas.renameStart', id: one })}
            title="Rename (Enter or F2)"
          >
            Rename
          </button>
          <button
            type="button"
            disabled={p.selected === 0}
            onClick={() => send({ type: 'canvas.delete' })}
            title="Delete (Delete or Backspace)"
          >
            Delete
          </button>
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
      <button type="button" onClick={() => p.onZoom(1 / 1.2)} aria-label="Zoom out">
        −
      </button>
      <span className="zoom" aria-live="polite">
        {Math.round(p.zoom * 100)}%
      </span>
      <button type="button" onClick={() => p.onZoom(1.2)} aria-label="Zoom in">
        +
      </button>
      <button type="button" onClick={p.onFit} aria-label="Zoom to fit">
        Fit
      </button>
      <span className="sep" />
      <div className="segmented" role="group" aria-label="View">
        {(['diagram', 'split', 'code'] as const).map((v) => (
          <button key={v} type="button" aria-pressed={p.pane === v} onClick={() => p.onPane(v)}>
            {v === 'split' ? 'Both' : v === 'diagram' ? 'Diagram' : 'Code'}
          </button>
        ))}
      </div>
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
      {!canEdit && <span className="badge">View only</span>}
    </div>
  );
}

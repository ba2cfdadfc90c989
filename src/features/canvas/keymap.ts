import type { CanvasIntent } from '../../../machines/open-machine/canvas.machine.ts';

export type KeyAction =
  | CanvasIntent
  | { type: 'doc.undo' }
  | { type: 'doc.redo' }
  | { type: 'view.fit' }
  | { type: 'view.zoom'; factor: number };

export interface KeyInput {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
}

/**
 * Diagram shortcuts: Enter/F2 rename, Tab add child, Shift+Enter add sibling,
 * Delete/Backspace delete, Escape cancel or deselect, Ctrl/Cmd+Z undo, Shift+Ctrl/Cmd+Z
 * or Ctrl+Y redo, +/- zoom, 0 zoom to fit. `newId` is called only when a state is added.
 */
export function keyAction(e: KeyInput, selection: string[], newId: () => string): KeyAction | null {
  const mod = e.ctrlKey || e.metaKey;
  const one = selection.length === 1 ? selection[0] : undefined;
  if (mod && e.key.toLowerCase() === 'z') return { type: e.shiftKey ? 'doc.redo' : 'doc.undo' };
  if (mod && e.key.toLowerCase() === 'y') return { type: 'doc.redo' };
  if (mod) return null;
  switch (e.key) {
    case 'Delete':
    case 'Backspace':
      return { type: 'canvas.delete' };
    case 'Escape':
      return selection.length > 0 ? { type: 'canvas.clearSelection' } : { type: 'canvas.cancel' };
    case 'F2':
      return one ? { type: 'canvas.renameStart', id: one } : null;
    case 'Enter':
      if (!one) return null;
      return e.shiftKey ? { type: 'canvas.addSibling', id: newId() } : { type: 'canvas.renameStart', id: one };
    case 'Tab':
      return one ? { type: 'canvas.addChild', id: newId() } : null;
    case '+':
    case '=':
      return { type: 'view.zoom', factor: 1.2 };
    case '-':
      return { type: 'view.zoom', factor: 1 / 1.2 };
    case '0':
      return { type: 'view.fit' };
    default:
      return null;
  }
}

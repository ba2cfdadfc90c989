import { applyEach, invertAll } from './rebase.ts';
import type { OpModel } from './types.ts';

/**
 * Undo and redo of this person's own edits. Each entry holds the ops that undo one
 * edit, computed when the edit was made. Undoing applies them as a new edit (so it is
 * shared and committed like any other), skipping any that others' edits since made
 * inapplicable, and records the inverse of what it applied for redo.
 */
export interface History<O> {
  undo: O[][];
  redo: O[][];
}

export const MAX_HISTORY = 200;

export function emptyHistory<O>(): History<O> {
  return { undo: [], redo: [] };
}

/** Records an edit applied to `before`; a new edit clears the redo stack. */
export function recordEdit<D, O>(model: OpModel<D, O>, history: History<O>, before: D, ops: readonly O[]): History<O> {
  if (ops.length === 0) return history;
  const undo = [...history.undo, invertAll(model, before, ops)].slice(-MAX_HISTORY);
  return { undo, redo: [] };
}

export interface Step<D, O> {
  history: History<O>;
  /** The ops to apply as a new edit (empty when nothing applies any more). */
  ops: O[];
  /** The document after them. */
  doc: D;
  /** Ops of the entry that no longer apply (others changed or removed what they touch). */
  dropped: O[];
}

function step<D, O>(model: OpModel<D, O>, doc: D, entry: O[]): { ops: O[]; doc: D; dropped: O[]; inverse: O[] } {
  const { doc: after, kept, dropped } = applyEach(model, doc, entry);
  return { ops: kept, doc: after, dropped, inverse: invertAll(model, doc, kept) };
}

export function undo<D, O>(model: OpModel<D, O>, history: History<O>, doc: D): Step<D, O> | null {
  const entry = history.undo[history.undo.length - 1];
  if (!entry) return null;
  const s = step(model, doc, entry);
  const redo = s.ops.length > 0 ? [...history.redo, s.inverse] : history.redo;
  return { history: { undo: history.undo.slice(0, -1), redo }, ops: s.ops, doc: s.doc, dropped: s.dropped };
}

export function redo<D, O>(model: OpModel<D, O>, history: History<O>, doc: D): Step<D, O> | null {
  const entry = history.redo[history.redo.length - 1];
  if (!entry) return null;
  const s = step(model, doc, entry);
  const undoStack = s.ops.length > 0 ? [...history.undo, s.inverse] : history.undo;
  return { history: { undo: undoStack, redo: history.redo.slice(0, -1) }, ops: s.ops, doc: s.doc, dropped: s.dropped };
}

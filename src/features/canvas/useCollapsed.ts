import { useCallback, useMemo } from 'react';
import { shownView } from '../../lib/layout/shown-view.ts';
import type { MachineDefinition, StateId } from '../../lib/model/types.ts';
import { useCanvasSend, useViewChoice } from './open-machine-context.ts';

export interface Collapsed {
  /** The compounds shown closed in this view. */
  collapsed: ReadonlySet<StateId>;
  /** Closed compounds shown, with how many states each hides. */
  hidden: Record<StateId, number>;
  /** Open (or close) these compounds in this view. */
  setOpen: (ids: string[], open: boolean) => void;
  /** Open a closed compound, or close an open one. */
  toggle: (id: string) => void;
}

/**
 * Big charts open with their deeper compounds collapsed, and a chart too big to read
 * whole in the diagram's pane (the canvas machine's `choice.pane`, once measured) opens as
 * Fit's overview (`fitCollapsed`); each person opens and closes states for themselves.
 * Only what shows is laid out and drawn (src/lib/layout/collapse.ts): what this person
 * opened and closed is the canvas machine's `choice` (`canvas.setOpen`), which it tells
 * the open machine, which lays out the definition as shown by the same rule
 * (`shownView`) this hook draws by.
 */
export function useCollapsed(definition: MachineDefinition): Collapsed {
  const canvasSend = useCanvasSend();
  const choice = useViewChoice();
  // The open machine worked out the same view for the layout: this is its answer, kept (shown-view.ts).
  const { collapsed, hidden } = useMemo(() => shownView(definition, choice), [definition, choice]);
  const setOpen = useCallback(
    (ids: string[], open: boolean) => canvasSend({ type: 'canvas.setOpen', ids, open }),
    [canvasSend],
  );
  const toggle = useCallback((id: string) => setOpen([id], collapsed.has(id)), [collapsed, setOpen]);
  return { collapsed, hidden, setOpen, toggle };
}

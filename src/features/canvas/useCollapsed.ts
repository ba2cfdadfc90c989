import { useCallback, useEffect, useMemo, useState } from 'react';
import { collapsedFor, collapseView, fitCollapsed } from '../../lib/layout/collapse.ts';
import type { MachineDefinition, StateId } from '../../lib/model/types.ts';
import { useOpenMachineSend } from './open-machine-context.ts';

export interface PaneSize {
  width: number;
  height: number;
}

const PANE_STEP = 40;

export interface Collapsed {
  /** The compounds shown closed in this view. */
  collapsed: ReadonlySet<StateId>;
  /** Closed compounds shown, with how many states each hides. */
  hidden: Record<StateId, number>;
  /** Open (or close) these compounds in this view. */
  setOpen: (ids: string[], open: boolean) => void;
  /** Open a closed compound, or close an open one. */
  toggle: (id: string) => void;
  /** The compounds Fit's overview collapses in this pane, as one key ('' for none): a new one is fitted. */
  overview: string;
}

/**
 * Big charts open with their deeper compounds collapsed, and a chart too big to read
 * whole in the diagram's pane (`paneSize`, once measured) opens as Fit's overview
 * (`fitCollapsed`); each person opens and closes
 * states for themselves. Only what shows is laid out and drawn (src/lib/layout/collapse.ts):
 * what this person opened and closed is this view's state, told to the open machine, which
 * lays out the definition as shown by the same rule (`collapsedFor`).
 */
export function useCollapsed(definition: MachineDefinition, paneSize: PaneSize | null = null): Collapsed {
  const openSend = useOpenMachineSend();
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  // Fit's overview follows the pane in steps, so a panel sliding open re-lays out once, not per frame.
  const paneW = paneSize ? Math.round(paneSize.width / PANE_STEP) * PANE_STEP : 0;
  const paneH = paneSize ? Math.round(paneSize.height / PANE_STEP) * PANE_STEP : 0;
  const pane = useMemo(() => (paneW > 0 && paneH > 0 ? { width: paneW, height: paneH } : undefined), [paneW, paneH]);
  const collapsed = useMemo(
    () => collapsedFor(definition, { opened: [...opened], closed: [...closed], ...(pane ? { pane } : {}) }),
    [definition, opened, closed, pane],
  );
  const overview = useMemo(
    () => (pane ? [...fitCollapsed(definition, pane)].sort().join(' ') : ''),
    [definition, pane],
  );
  const { hidden } = useMemo(() => collapseView(definition, collapsed), [definition, collapsed]);
  useEffect(
    () =>
      openSend({ type: 'machine.viewChanged', opened: [...opened], closed: [...closed], ...(pane ? { pane } : {}) }),
    [openSend, opened, closed, pane],
  );
  const setOpen = useCallback((ids: string[], open: boolean) => {
    const edit = (add: boolean) => (prev: ReadonlySet<string>) => {
      const next = new Set(prev);
      for (const id of ids)
        if (add) next.add(id);
        else next.delete(id);
      return next;
    };
    setOpened(edit(open));
    setClosed(edit(!open));
  }, []);
  const toggle = useCallback((id: string) => setOpen([id], collapsed.has(id)), [collapsed, setOpen]);
  return { collapsed, hidden, setOpen, toggle, overview };
}

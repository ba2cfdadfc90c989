import { useCallback, useEffect, useMemo, useState } from 'react';
import { collapsedFor, collapseView } from '../../lib/layout/collapse.ts';
import type { MachineDefinition, StateId } from '../../lib/model/types.ts';
import { useOpenMachineSend } from './open-machine-context.ts';

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
 * Big charts open with their deeper compounds collapsed; each person opens and closes
 * states for themselves. Only what shows is laid out and drawn (src/lib/layout/collapse.ts):
 * what this person opened and closed is this view's state, told to the open machine, which
 * lays out the definition as shown by the same rule (`collapsedFor`).
 */
export function useCollapsed(definition: MachineDefinition): Collapsed {
  const openSend = useOpenMachineSend();
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  const collapsed = useMemo(
    () => collapsedFor(definition, { opened: [...opened], closed: [...closed] }),
    [definition, opened, closed],
  );
  const { hidden } = useMemo(() => collapseView(definition, collapsed), [definition, collapsed]);
  useEffect(
    () => openSend({ type: 'machine.viewChanged', opened: [...opened], closed: [...closed] }),
    [openSend, opened, closed],
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
  return { collapsed, hidden, setOpen, toggle };
}

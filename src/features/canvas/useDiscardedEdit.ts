import { useEffect, useRef, useState } from 'react';
import type { CanvasMode } from './open-machine-context.ts';

/**
 * Losing the right to edit closes an open name field (the canvas machine does): what was
 * dropped ('state name' or 'event name'), to say so, and how to dismiss the notice.
 */
export function useDiscardedEdit(canEdit: boolean, mode: CanvasMode): [string | null, () => void] {
  const [discarded, setDiscarded] = useState<string | null>(null);
  const editingMode = useRef<CanvasMode>('idle');
  useEffect(() => {
    if (canEdit) {
      editingMode.current = mode;
      return;
    }
    if (editingMode.current === 'renaming') setDiscarded('state name');
    else if (editingMode.current === 'labelling') setDiscarded('event name');
    editingMode.current = 'idle';
  }, [canEdit, mode]);
  return [discarded, () => setDiscarded(null)];
}

import { useEffect, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';

export interface Popover {
  open: boolean;
  setOpen: Dispatch<SetStateAction<boolean>>;
  /** The element holding the toggle and the popover: a click outside it closes. */
  ref: RefObject<HTMLDivElement | null>;
}

/**
 * A bar's popover (menu, form or panel) that closes on Escape or on a click outside its
 * element. The listeners are set once per opening, not again on each render.
 */
export function usePopover(): Popover {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return { open, setOpen, ref };
}

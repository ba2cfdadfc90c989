import { useMemo, useState, type FormEvent } from 'react';
import { hiddenBy } from '../../lib/layout/collapse.ts';
import type { MachineDefinition, StateId } from '../../lib/model/types.ts';
import { useCanvasSend } from './open-machine-context.ts';

export interface Find {
  query: string;
  setQuery: (q: string) => void;
  /** The last query that named no state, or null. */
  missed: string | null;
  /**
   * Every state name, for the suggestions: only while the box is in use (focused), so an
   * edit to a big chart does not rebuild a list no one is looking at.
   */
  names: string[];
  /** The box gained (true) or lost (false) focus: the suggestions are built while it has it. */
  setInUse: (inUse: boolean) => void;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
}

const NO_NAMES: string[] = [];

/** Find a state by name: open what hides it, select it, and bring it into view (the canvas machine does, once it is laid out). */
export function useFind(
  definition: MachineDefinition,
  collapsed: ReadonlySet<StateId>,
  setOpen: (ids: string[], open: boolean) => void,
  find: (id: string) => void,
): Find {
  const canvasSend = useCanvasSend();
  const [query, setQuery] = useState('');
  const [missed, setMissed] = useState<string | null>(null);
  const [inUse, setInUse] = useState(false);
  const names = useMemo(
    () =>
      !inUse
        ? NO_NAMES
        : [
            ...new Set(
              Object.values(definition.states)
                .filter((s) => s.parent !== null)
                .map((s) => s.key),
            ),
          ].sort(),
    [definition, inUse],
  );
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const q = query.trim().toLowerCase();
    if (q === '') return;
    const states = Object.values(definition.states).filter((s) => s.parent !== null);
    const hit = states.find((s) => s.key.toLowerCase() === q) ?? states.find((s) => s.key.toLowerCase().includes(q));
    setMissed(hit ? null : query.trim());
    if (!hit) return;
    setOpen(hiddenBy(definition, collapsed, hit.id), true);
    canvasSend({ type: 'canvas.select', id: hit.id, additive: false });
    find(hit.id);
  };
  const set = (q: string) => {
    setQuery(q);
    setMissed(null);
  };
  return { query, setQuery: set, missed, names, setInUse, onSubmit };
}

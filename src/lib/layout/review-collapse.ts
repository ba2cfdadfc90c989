import type { MachineDefinition, StateId } from '../model/types.ts';
import { collapsedFor, collapseView, type CollapsedView } from './collapse.ts';

/**
 * A version or diff as the main canvas shows it: collapsed as the live chart would be in
 * the same pane (the default for its size and Fit's overview, src/lib/layout/collapse.ts),
 * except that every compound holding a changed element stays open, so no change is hidden.
 * `marks` are the diff's, by state or transition id; `pane` null: not measured yet.
 */
export function reviewShown(
  def: MachineDefinition,
  marks: ReadonlyMap<string, unknown> | undefined,
  pane: { width: number; height: number } | null,
): CollapsedView {
  const opened = new Set<StateId>();
  const openAround = (id: StateId | undefined) => {
    for (let cur = id ? (def.states[id]?.parent ?? null) : null; cur !== null; cur = def.states[cur]?.parent ?? null)
      opened.add(cur);
  };
  for (const id of marks?.keys() ?? []) {
    const t = def.transitions[id];
    if (!t) openAround(id);
    else for (const end of [t.source, ...t.targets]) openAround(end);
  }
  const collapsed = collapsedFor(def, { opened: [...opened], closed: [], ...(pane ? { pane } : {}) });
  return collapseView(def, collapsed);
}

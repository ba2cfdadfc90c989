import type { MachineDefinition, StateId, Transition } from '../model/types.ts';

/**
 * Collapsed compound states, for big charts. A collapsed state is drawn as one box (its
 * inside hidden, a count of what it holds shown) and laid out as a leaf, so a 1,000-state
 * chart lays out and draws only what is open. Transitions to or from hidden states are
 * drawn to or from the collapsed box that holds them; those wholly inside one box are not
 * drawn. The view is a definition of its own, handed to the same layout as any other.
 */

/** How many states a chart may show open before its deeper compounds start collapsed. */
export const OPEN_BUDGET = 80;

/**
 * The compounds to collapse so that at most `budget` states show: whole levels are opened
 * from the root down while they fit, and the compounds of the first level that does not
 * fit are collapsed. Small charts collapse nothing.
 */
export function autoCollapsed(def: MachineDefinition, budget = OPEN_BUDGET): Set<StateId> {
  const out = new Set<StateId>();
  if (Object.keys(def.states).length <= budget) return out;
  let shown = 1;
  let level: StateId[] = [def.root];
  while (level.length > 0) {
    const next = level.flatMap((id) => def.states[id]?.children ?? []);
    if (shown + next.length > budget) {
      for (const id of level) if ((def.states[id]?.children.length ?? 0) > 0 && id !== def.root) out.add(id);
      // The root itself is never collapsed: open it, and collapse its compound children.
      if (level.length === 1 && level[0] === def.root)
        for (const id of next) if ((def.states[id]?.children.length ?? 0) > 0) out.add(id);
      return out;
    }
    shown += next.length;
    level = next;
  }
  return out;
}

/**
 * A person's own choices over the default: compounds they opened that start collapsed,
 * and ones they closed; `budget` is how many states their view shows open before the
 * deeper compounds start collapsed (the default when absent).
 */
export interface CollapseChoice {
  opened: readonly StateId[];
  closed: readonly StateId[];
  budget?: number;
}

export const NO_CHOICE: CollapseChoice = { opened: [], closed: [] };

/**
 * The compounds shown collapsed in `def` for a person's choice: the default for the
 * chart as it is now (a chart that grows past the budget starts collapsed at once, before
 * any view has seen it), plus what they closed, minus what they opened.
 */
export function collapsedFor(def: MachineDefinition, choice: CollapseChoice): Set<StateId> {
  const set = autoCollapsed(def, choice.budget);
  for (const id of choice.closed) set.add(id);
  for (const id of choice.opened) set.delete(id);
  return set;
}

export interface CollapsedView {
  /** The definition as shown: collapsed compounds without children, transitions re-pointed. */
  view: MachineDefinition;
  /** Collapsed states shown, with how many states each one hides. */
  hidden: Record<StateId, number>;
}

/** The definition with `collapsed` compounds closed (those inside a closed one stay hidden). */
export function collapseView(def: MachineDefinition, collapsed: ReadonlySet<StateId>): CollapsedView {
  if (collapsed.size === 0) return { view: def, hidden: {} };
  // The state each state is shown as: itself, or its outermost collapsed ancestor.
  const shownAs = new Map<StateId, StateId>();
  const hidden: Record<StateId, number> = {};
  const states: MachineDefinition['states'] = {};
  const visit = (id: StateId, closedBy: StateId | null): void => {
    const s = def.states[id];
    if (!s) return;
    shownAs.set(id, closedBy ?? id);
    if (closedBy !== null) {
      hidden[closedBy] = (hidden[closedBy] ?? 0) + 1;
      for (const c of s.children) visit(c, closedBy);
      return;
    }
    const close = s.children.length > 0 && collapsed.has(id) && id !== def.root;
    states[id] = close ? { ...s, children: [], initial: null } : s;
    if (close) hidden[id] = 0;
    for (const c of s.children) visit(c, close ? id : null);
  };
  visit(def.root, null);

  const transitions: Record<string, Transition> = {};
  for (const t of Object.values(def.transitions)) {
    const source = shownAs.get(t.source) ?? t.source;
    const targets = [...new Set(t.targets.map((x) => shownAs.get(x) ?? x))];
    const inside = source !== t.source && targets.every((x) => x === source);
    if (inside) continue;
    transitions[t.id] =
      source === t.source && targets.length === t.targets.length && targets.every((x, i) => x === t.targets[i])
        ? t
        : { ...t, source, targets };
  }
  return { view: { ...def, states, transitions }, hidden };
}

/** The collapsed ancestors that hide `id` (outermost first); empty when it shows. */
export function hiddenBy(def: MachineDefinition, collapsed: ReadonlySet<StateId>, id: StateId): StateId[] {
  const out: StateId[] = [];
  for (let cur = def.states[id]?.parent ?? null; cur !== null; cur = def.states[cur]?.parent ?? null)
    if (collapsed.has(cur)) out.unshift(cur);
  return out;
}

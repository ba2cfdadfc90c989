import type { MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { levelAreas } from './fit-areas.ts';
import { estimateText } from './labels.ts';

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
 * The zoom Fit must reach for every label to be drawn (at the 10 px floor, grown by at
 * most LABEL_ROOM: readability.ts) with a little to spare.
 */
export const READABLE_ZOOM = 0.65;
/**
 * A laid-out chart's picture is several times the area of its boxes and label pills
 * (long edges, layers of uneven height): the bundled examples measure 2.5 to 10. Fit's
 * overview plans with this much, the most that still opened every example that reads
 * at Fit in panes of 1280x800 and 1600x1000 windows (bench/sections/fit.ts).
 */
export const AREA_SLACK = 10.5;

/**
 * Fit's overview: the compounds to collapse so that the chart as shown fits a `pane`
 * (the diagram's size in px) at a zoom where every label is drawn at least 10 px tall.
 * Levels are tried from the deepest compounds up: the chart with everything open, then
 * with the deepest compounds collapsed, and so on up to the root's children (each shown
 * as one box saying how many states it holds). The first that is expected to be readable
 * is kept; a chart readable by none shows the most collapsed. Decided from the
 * definition and the pane alone, so every view of the same chart in the same pane, and
 * the layout asked for it, agree.
 */
export function fitCollapsed(
  def: MachineDefinition,
  pane: { width: number; height: number },
  measure: TextMeasure = estimateText,
): Set<StateId> {
  // The open machine and the diagram each ask for the same definition in the same pane: worked out once.
  const last = lastFit;
  if (last && last.def === def && last.measure === measure && last.width === pane.width && last.height === pane.height)
    return new Set(last.set);
  const set = fitLevels(def, pane, measure);
  lastFit = { def, measure, width: pane.width, height: pane.height, set };
  return new Set(set);
}

let lastFit: {
  def: MachineDefinition;
  measure: TextMeasure;
  width: number;
  height: number;
  set: ReadonlySet<StateId>;
} | null = null;

function fitLevels(
  def: MachineDefinition,
  pane: { width: number; height: number },
  measure: TextMeasure,
): Set<StateId> {
  const usable = Math.max(1, pane.width - 64) * Math.max(1, pane.height - 64);
  const { compounds, levels } = levelAreas(def, measure);
  let set = new Set<StateId>();
  for (const { depth, area } of levels) {
    set = new Set(compounds.filter((c) => c.depth >= depth).map((c) => c.id));
    if (Math.sqrt(usable / (area * AREA_SLACK)) >= READABLE_ZOOM) return set;
  }
  return set;
}

/**
 * Fit's overview for `def` in this pane as one key (the collapsed ids, sorted; '' for none or
 * no pane yet): a layout that comes with a new one is fitted again (the canvas machine).
 */
export const overviewKey = (
  def: MachineDefinition | null,
  pane: { width: number; height: number } | undefined,
): string => (def && pane ? [...fitCollapsed(def, pane)].sort().join(' ') : '');

/**
 * A person's own choices over the default: compounds they opened that start collapsed,
 * and ones they closed; `budget` is how many states their view shows open before the
 * deeper compounds start collapsed (the default when absent).
 */
export interface CollapseChoice {
  opened: readonly StateId[];
  closed: readonly StateId[];
  budget?: number;
  /** The diagram pane's size in px: Fit's overview collapses what would not be readable in it (`fitCollapsed`). */
  pane?: { width: number; height: number };
}

export const NO_CHOICE: CollapseChoice = { opened: [], closed: [] };

/**
 * The compounds shown collapsed in `def` for a person's choice: the default for the
 * chart as it is now (a chart that grows past the budget starts collapsed at once, before
 * any view has seen it) and, with the pane known, Fit's overview for it, plus what they
 * closed, minus what they opened. `auto` is the default when the caller has it already
 * (it depends only on the tree's shape).
 */
export function collapsedFor(
  def: MachineDefinition,
  choice: CollapseChoice,
  auto: ReadonlySet<StateId> = autoCollapsed(def, choice.budget),
): Set<StateId> {
  const set = new Set(auto);
  if (choice.pane) for (const id of fitCollapsed(def, choice.pane)) set.add(id);
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

/** A collapsed state as shown (no children), one object per state object: its drawn box is redrawn only when the state changed. */
const closedCopies = new WeakMap<StateNode, StateNode>();
export function closedCopy(s: StateNode): StateNode {
  let copy = closedCopies.get(s);
  if (!copy) {
    copy = { ...s, children: [], initial: null };
    closedCopies.set(s, copy);
  }
  return copy;
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
    states[id] = close ? closedCopy(s) : s;
    if (close) hidden[id] = 0;
    for (const c of s.children) visit(c, close ? id : null);
  };
  visit(def.root, null);

  const transitions: Record<string, Transition> = {};
  const showsAsItself = (id: StateId): boolean => (shownAs.get(id) ?? id) === id;
  for (const t of Object.values(def.transitions)) {
    // Most arrows join states that show: kept as they are, nothing allocated.
    if (t.targets.length <= 1 && showsAsItself(t.source) && t.targets.every(showsAsItself)) {
      transitions[t.id] = t;
      continue;
    }
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

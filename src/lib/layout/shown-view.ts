import type { MachineDefinition, StateId } from '../model/types.ts';
import {
  autoCollapsed,
  closedCopy,
  collapsedFor,
  collapseView,
  type CollapseChoice,
  type CollapsedView,
} from './collapse.ts';
import { shownKey } from './shown-key.ts';

/**
 * The chart as one person's view shows it (`collapseView` of `collapsedFor`), worked out
 * from the last one when only states' contents changed. A remote rename on a 1,000-state
 * chart changes one state object and shares the rest (src/lib/model/apply.ts): the tree's
 * shape, the transitions and so which compounds are closed and what each hides stay as
 * they were, so the view is the last view with that one state replaced (or the last view
 * itself when the state is hidden), instead of a walk of every state and transition.
 * The open machine (what it lays out) and the diagram (the hidden counts it draws) ask
 * for the same definitions in turn: the last two answers are kept, the one asked for last
 * first (the base for the next).
 */

export interface ShownView extends CollapsedView {
  /** The compounds shown closed. */
  collapsed: ReadonlySet<StateId>;
}

interface Entry {
  def: MachineDefinition;
  choice: CollapseChoice;
  /** The default collapse for the budget (it depends only on the tree's shape). */
  auto: ReadonlySet<StateId>;
  shown: ShownView;
}

let recent: Entry[] = [];

const sameIds = (a: readonly string[], b: readonly string[]): boolean =>
  a === b || (a.length === b.length && a.every((x, i) => x === b[i]));

const sameChoice = (a: CollapseChoice, b: CollapseChoice): boolean =>
  a === b ||
  (sameIds(a.opened, b.opened) &&
    sameIds(a.closed, b.closed) &&
    a.budget === b.budget &&
    a.pane?.width === b.pane?.width &&
    a.pane?.height === b.pane?.height);

const sameSet = (a: ReadonlySet<StateId>, b: ReadonlySet<StateId>): boolean =>
  a.size === b.size && [...a].every((x) => b.has(x));

/**
 * The states whose objects differ between `prev` and `next` when the tree's shape is the
 * same (same states, each under the same parent with the same children, same
 * transitions object and root); null when the shape changed.
 */
function contentChanges(prev: MachineDefinition, next: MachineDefinition): StateId[] | null {
  if (prev.root !== next.root || prev.transitions !== next.transitions) return null;
  const ids = Object.keys(next.states);
  if (ids.length !== Object.keys(prev.states).length) return null;
  const changed: StateId[] = [];
  for (const id of ids) {
    const s = next.states[id]!;
    const p = prev.states[id];
    if (s === p) continue;
    if (!p || p.parent !== s.parent || !sameIds(p.children, s.children)) return null;
    changed.push(id);
  }
  return changed;
}

/** `def`'s top-level fields other than its states and transitions are the same values as `view`'s. */
const sameFrame = (def: MachineDefinition, view: MachineDefinition): boolean =>
  (Object.keys(def) as (keyof MachineDefinition)[]).every(
    (k) => k === 'states' || k === 'transitions' || def[k] === view[k],
  );

/** The last view with the changed states' new objects in it (closed copies for closed compounds). */
function patched(last: Entry, def: MachineDefinition, changed: StateId[]): ShownView {
  const { view, hidden, collapsed } = last.shown;
  let states = view.states;
  for (const id of changed) {
    if (!Object.hasOwn(view.states, id)) continue; // hidden inside a closed compound: nothing shows it
    if (states === view.states) states = { ...view.states };
    const s = def.states[id]!;
    states[id] = s.children.length > 0 && collapsed.has(id) && id !== def.root ? closedCopy(s) : s;
  }
  if (states === view.states && sameFrame(def, view)) return last.shown;
  return { view: { ...def, states, transitions: view.transitions }, hidden, collapsed };
}

/** The definition as this choice shows it: its closed compounds, the view and what each closed one hides. */
export function shownView(def: MachineDefinition, choice: CollapseChoice): ShownView {
  const hit = recent.find((e) => e.def === def && sameChoice(e.choice, choice));
  if (hit) {
    recent = [hit, ...recent.filter((e) => e !== hit)];
    return hit.shown;
  }
  const last = recent.find((e) => sameChoice(e.choice, choice));
  const changed = last ? contentChanges(last.def, def) : null;
  const auto = last && changed ? last.auto : autoCollapsed(def, choice.budget);
  const collapsed = collapsedFor(def, choice, auto);
  const shown =
    last && changed && sameSet(collapsed, last.shown.collapsed)
      ? patched(last, def, changed)
      : { ...collapseView(def, collapsed), collapsed };
  recent = [{ def, choice, auto, shown }, ...recent].slice(0, 2);
  return shown;
}

/**
 * Whether two shown definitions draw the same picture: the same objects, or entries whose
 * text with keys sorted is the same (`shownKey`), so an echo of this tab's own edit read
 * back from the server (keys in jsonb's order, fresh objects) is not laid out again. Only
 * the entries that are different objects are written out.
 */
export function samePicture(a: MachineDefinition, b: MachineDefinition): boolean {
  if (a === b) return true;
  const { states: sa, transitions: ta, ...restA } = a;
  const { states: sb, transitions: tb, ...restB } = b;
  return shownKey(restA) === shownKey(restB) && sameEntries(sa, sb) && sameEntries(ta, tb);
}

function sameEntries<T>(a: Record<string, T>, b: Record<string, T>): boolean {
  if (a === b) return true;
  const ids = Object.keys(a);
  if (ids.length !== Object.keys(b).length) return false;
  return ids.every((id) => a[id] === b[id] || (Object.hasOwn(b, id) && shownKey(a[id]) === shownKey(b[id])));
}

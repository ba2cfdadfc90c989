import type { MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { transitionLabel, wrapLabel } from './labels.ts';
import { GEOMETRY, LABEL_ROOM, leafSize } from './sizes.ts';

/**
 * The drawn area of a chart at each of Fit's overview levels (collapse.ts `fitCollapsed`):
 * level `depth` closes every compound at that depth or deeper. Worked out for all levels
 * in one pass, and after an edit that keeps the tree's shape (a rename, a state or
 * transition edited) only from the states and transitions that changed.
 */

/** What a leaf box or a label pill adds to the drawn area, kept per state or transition object per measure (definitions share untouched ones). */
const areas = new WeakMap<
  TextMeasure,
  { leaf: WeakMap<object, number>; closed: WeakMap<object, number>; label: WeakMap<object, number> }
>();

function areasFor(measure: TextMeasure) {
  let found = areas.get(measure);
  if (!found) {
    found = { leaf: new WeakMap(), closed: new WeakMap(), label: new WeakMap() };
    areas.set(measure, found);
  }
  return found;
}

const leafArea = (def: MachineDefinition, s: StateNode, measure: TextMeasure): number => {
  const size = leafSize(def, s, measure, null);
  return (size.width + GEOMETRY.pad) * (size.height + GEOMETRY.pad);
};

const labelArea = (def: MachineDefinition, t: Transition, measure: TextMeasure): number => {
  const lines = wrapLabel(transitionLabel(def, t));
  const width = Math.max(...lines.map((l) => measure(l, 'edge'))) + GEOMETRY.edgeLabelPad;
  const height = GEOMETRY.edgeLabelHeight + (lines.length - 1) * GEOMETRY.edgeLabelLine;
  return width * height * LABEL_ROOM * LABEL_ROOM;
};

const cached = <K extends object>(map: WeakMap<object, number>, key: K, compute: () => number): number => {
  const known = map.get(key);
  if (known !== undefined) return known;
  const value = compute();
  map.set(key, value);
  return value;
};

/**
 * The area of what `def` with `collapsed` closed draws (`collapseView(def, collapsed).view`):
 * its leaf boxes (with a margin) and its label pills with their room. Worked out without
 * building the view, each box and pill measured once per object: a remote rename measures
 * one name again, not the chart.
 */
export function drawnArea(def: MachineDefinition, collapsed: ReadonlySet<StateId>, measure: TextMeasure): number {
  const known = areasFor(measure);
  const shownAs = new Map<StateId, StateId>();
  let area = 0;
  const visit = (id: StateId, closedBy: StateId | null): void => {
    const s = def.states[id];
    if (!s) return;
    shownAs.set(id, closedBy ?? id);
    if (closedBy !== null) {
      for (const c of s.children) visit(c, closedBy);
      return;
    }
    const close = s.children.length > 0 && collapsed.has(id) && id !== def.root;
    // The root's title is the machine's name: measured each time, never kept.
    if (close) area += cached(known.closed, s, () => leafArea(def, { ...s, children: [], initial: null }, measure));
    else if (s.children.length === 0)
      area += s.parent === null ? leafArea(def, s, measure) : cached(known.leaf, s, () => leafArea(def, s, measure));
    for (const c of s.children) visit(c, close ? id : null);
  };
  visit(def.root, null);
  for (const t of Object.values(def.transitions)) {
    const source = shownAs.get(t.source) ?? t.source;
    if (source !== t.source && t.targets.every((x) => (shownAs.get(x) ?? x) === source)) continue;
    // An invoke's outcome is named by its source's invoke: such labels are read from the state shown.
    const e = t.event;
    if (typeof e === 'object' && 'invoke' in e) area += labelArea(def, { ...t, source }, measure);
    else area += cached(known.label, t, () => labelArea(def, t, measure));
  }
  return area;
}

export interface LevelArea {
  /** Compounds at this depth or deeper are closed (deepest + 1: none). */
  depth: number;
  area: number;
}

interface Plan {
  def: MachineDefinition;
  measure: TextMeasure;
  depth: Map<StateId, number>;
  compounds: { id: StateId; depth: number }[];
  /** Depths from the deepest compound's + 1 up to 1, as Fit tries them. */
  depths: number[];
  /**
   * Per level: the states' and the labels' area, without the root's box and invoke labels
   * (worked out each time). Each part is rounded to whole px², so a sum kept up to date
   * edit by edit is exactly the one worked out afresh: every view decides alike.
   */
  kept: number[];
  /** The invoke outcomes among the transitions (their labels are read from the state shown, so measured each time). */
  invokes: Transition[];
}

let last: Plan | null = null;

/** The drawn area at each overview level, deepest first, and the compounds with their depths. */
export function levelAreas(
  def: MachineDefinition,
  measure: TextMeasure,
): { compounds: { id: StateId; depth: number }[]; levels: LevelArea[] } {
  const plan = last && last.measure === measure ? (updated(last, def) ?? fresh(def, measure)) : fresh(def, measure);
  last = plan;
  const levels = plan.depths.map((depth, i) => {
    let area = plan.kept[i]!;
    const root = def.states[def.root];
    if (root && root.children.length === 0) area += leafArea(def, root, measure);
    for (const t of plan.invokes) area += transitionArea(plan, def, t, depth, measure, true);
    return { depth, area };
  });
  return { compounds: plan.compounds, levels };
}

const isInvoke = (t: Transition): boolean => typeof t.event === 'object' && 'invoke' in t.event;

/** The state `id` is drawn as at level `depth`: itself, or its ancestor at that depth. */
function shownAt(plan: Plan, def: MachineDefinition, id: StateId, depth: number): StateId {
  let cur = id;
  let d = plan.depth.get(id) ?? 0;
  while (d > depth) {
    cur = def.states[cur]?.parent ?? cur;
    d -= 1;
  }
  return cur;
}

function stateArea(plan: Plan, def: MachineDefinition, s: StateNode, depth: number, measure: TextMeasure): number {
  if (s.parent === null) return 0;
  const d = plan.depth.get(s.id) ?? 0;
  if (d > depth) return 0;
  const known = areasFor(measure);
  if (s.children.length > 0)
    return d === depth
      ? cached(known.closed, s, () => leafArea(def, { ...s, children: [], initial: null }, measure))
      : 0;
  return cached(known.leaf, s, () => leafArea(def, s, measure));
}

function transitionArea(
  plan: Plan,
  def: MachineDefinition,
  t: Transition,
  depth: number,
  measure: TextMeasure,
  invoke: boolean,
): number {
  if (isInvoke(t) !== invoke) return 0;
  const source = shownAt(plan, def, t.source, depth);
  if (source !== t.source && t.targets.every((x) => shownAt(plan, def, x, depth) === source)) return 0;
  if (invoke) return labelArea(def, { ...t, source }, measure);
  return Math.round(cached(areasFor(measure).label, t, () => labelArea(def, t, measure)));
}

function fresh(def: MachineDefinition, measure: TextMeasure): Plan {
  const depth = new Map<StateId, number>();
  const visit = (id: StateId, d: number): void => {
    const s = def.states[id];
    if (!s || depth.has(id)) return;
    depth.set(id, d);
    for (const c of s.children) visit(c, d + 1);
  };
  visit(def.root, 0);
  const compounds = Object.values(def.states)
    .filter((s) => s.children.length > 0 && s.parent !== null)
    .map((s) => ({ id: s.id, depth: depth.get(s.id) ?? 0 }));
  const deepest = Math.max(0, ...compounds.map((c) => c.depth));
  const depths: number[] = [];
  for (let d = deepest + 1; d >= 1; d -= 1) depths.push(d);
  const invokes = Object.values(def.transitions).filter(isInvoke);
  const plan: Plan = { def, measure, depth, compounds, depths, kept: [], invokes };
  plan.kept = depths.map((d) => {
    let area = 0;
    for (const s of Object.values(def.states)) area += stateArea(plan, def, s, d, measure);
    for (const t of Object.values(def.transitions)) area += transitionArea(plan, def, t, d, measure, false);
    return area;
  });
  return plan;
}

const sameIds = (a: readonly string[], b: readonly string[]): boolean =>
  a === b || (a.length === b.length && a.every((x, i) => x === b[i]));

/**
 * The plan for `def` from the one for the definition before it, when the tree and the
 * transitions' ends are the same (then depths and what each level hides are too): only
 * the changed states' and transitions' areas move. Null when the shape changed.
 */
function updated(plan: Plan, def: MachineDefinition): Plan | null {
  const before = plan.def;
  if (before === def) return plan;
  if (before.root !== def.root) return null;
  const states = Object.keys(def.states);
  // A rename shares the transitions: none of them is looked at.
  const transitions = def.transitions === before.transitions ? [] : Object.keys(def.transitions);
  if (states.length !== Object.keys(before.states).length) return null;
  if (def.transitions !== before.transitions && transitions.length !== Object.keys(before.transitions).length)
    return null;
  const kept = [...plan.kept];
  const invokes =
    def.transitions === before.transitions ? plan.invokes : Object.values(def.transitions).filter(isInvoke);
  const next = { ...plan, def, kept, invokes };
  for (const id of states) {
    const s = def.states[id]!;
    const old = before.states[id];
    if (old === s) continue;
    if (!old || old.parent !== s.parent || !sameIds(old.children, s.children)) return null;
    plan.depths.forEach((d, i) => {
      kept[i] = kept[i]! - stateArea(plan, before, old, d, plan.measure) + stateArea(next, def, s, d, plan.measure);
    });
  }
  for (const id of transitions) {
    const t = def.transitions[id]!;
    const old = before.transitions[id];
    if (old === t) continue;
    if (!old || old.source !== t.source || !sameIds(old.targets, t.targets) || isInvoke(old) !== isInvoke(t))
      return null;
    plan.depths.forEach((d, i) => {
      kept[i] =
        kept[i]! -
        transitionArea(plan, before, old, d, plan.measure, false) +
        transitionArea(next, def, t, d, plan.measure, false);
    });
  }
  return next;
}

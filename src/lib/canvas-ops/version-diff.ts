import type { MachineDefinition, StateId, StateNode, Transition, TransitionId } from '../model/types.ts';
import { describeDiff, pathsOf, type ChartChange } from './describe-diff.ts';

/**
 * The visual diff of two versions of one machine: what changed, in words (describe-diff.ts,
 * matching by id first), each change's element marked `added`, `removed` or `changed`,
 * and the definition to draw: `after` with what `before` had and `after` lost put back
 * where it was (a removed state under its old parent, a removed transition between the
 * states it joined), so one picture shows both.
 */

export type DiffKind = ChartChange['kind'];

export interface VersionDiff {
  changes: ChartChange[];
  /** Each changed element of `union` by id (states and transitions). */
  marks: ReadonlyMap<string, DiffKind>;
  union: MachineDefinition;
}

export function versionDiff(before: MachineDefinition, after: MachineDefinition): VersionDiff {
  const changes = describeDiff(before, after, { byId: true });
  const marks = new Map<string, DiffKind>();
  for (const c of changes) if (c.id !== null) marks.set(c.id, c.kind);
  return { changes, marks, union: unionOf(before, after, changes) };
}

function unionOf(before: MachineDefinition, after: MachineDefinition, changes: ChartChange[]): MachineDefinition {
  const removedStates = new Set(changes.filter((c) => c.what === 'state' && c.kind === 'removed').map((c) => c.id));
  const removedTransitions = changes.filter((c) => c.what === 'transition' && c.kind === 'removed');
  if (removedStates.size === 0 && removedTransitions.length === 0) return after;

  // A state of `before` in the union: itself when kept by id or put back, else the state
  // `after` has at its path (matched by path), else none.
  const afterByPath = new Map([...pathsOf(after)].map(([id, path]) => [path, id]));
  const beforePaths = pathsOf(before);
  const inUnion = (id: StateId): StateId | null => {
    if (Object.hasOwn(after.states, id) || removedStates.has(id)) return id;
    return afterByPath.get(beforePaths.get(id) ?? '') ?? null;
  };

  const states: Record<StateId, StateNode> = { ...after.states };
  // Top-down, so a removed parent is back before its removed children.
  for (const id of beforePaths.keys()) {
    if (!removedStates.has(id)) continue;
    const old = before.states[id] as StateNode;
    const parent = old.parent === null ? null : inUnion(old.parent);
    if (parent === null || !states[parent]) continue;
    states[id] = { ...old, parent, children: [], initial: null };
    const p = states[parent];
    states[parent] = { ...p, children: [...p.children, id] };
  }
  // A put-back state shows its initial child when that is back too.
  for (const id of removedStates) {
    const old = id === null ? undefined : before.states[id];
    if (old?.initial && states[id as StateId] && states[old.initial]?.parent === id)
      states[id as StateId] = { ...(states[id as StateId] as StateNode), initial: old.initial };
  }

  const transitions: Record<TransitionId, Transition> = { ...after.transitions };
  for (const c of removedTransitions) {
    const old = c.id === null ? undefined : before.transitions[c.id];
    if (!old) continue;
    const source = inUnion(old.source);
    const targets = old.targets.map(inUnion);
    if (source === null || !states[source] || targets.some((t) => t === null || !states[t])) continue;
    transitions[old.id] = { ...old, source, targets: targets as StateId[] };
  }
  return { ...after, states, transitions };
}

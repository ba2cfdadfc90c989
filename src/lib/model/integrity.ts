import type { MachineDefinition } from './types.ts';

/**
 * Structural invariants every op preserves (unlike validation, which is about the
 * statechart's meaning): one root, parent/children links agree, every state is in the
 * tree once, sibling keys are unique, `initial` is a child, history targets and
 * transition endpoints exist, invoke outcomes name an invocation of their source.
 * Returns the problems found; empty means sound. For tests and for checking a
 * definition loaded from storage.
 */
export function integrityProblems(def: MachineDefinition): string[] {
  const problems: string[] = [];
  const root = def.states[def.root];
  if (!root) return [`root ${def.root} is missing`];
  if (root.parent !== null) problems.push('the root has a parent');
  const seen = new Set<string>();
  const walk = (id: string): void => {
    if (seen.has(id)) {
      problems.push(`state ${id} appears twice in the tree`);
      return;
    }
    seen.add(id);
    const node = def.states[id];
    if (!node) {
      problems.push(`missing state ${id}`);
      return;
    }
    if (node.id !== id) problems.push(`state ${id} is stored under another id (${node.id})`);
    const keys = new Set<string>();
    for (const c of node.children) {
      const child = def.states[c];
      if (!child) continue;
      if (child.parent !== id) problems.push(`child ${c} of ${id} names parent ${String(child.parent)}`);
      if (keys.has(child.key)) problems.push(`${id} has two children keyed "${child.key}"`);
      keys.add(child.key);
      walk(c);
    }
    if (node.initial !== null && !node.children.includes(node.initial))
      problems.push(`initial of ${id} is not its child`);
    if (node.historyTarget !== null && !def.states[node.historyTarget])
      problems.push(`history target of ${id} is missing`);
  };
  walk(def.root);
  for (const id of Object.keys(def.states)) if (!seen.has(id)) problems.push(`state ${id} is not in the tree`);
  for (const [id, t] of Object.entries(def.transitions)) {
    if (t.id !== id) problems.push(`transition ${id} is stored under another id (${t.id})`);
    const source = def.states[t.source];
    if (!source) problems.push(`transition ${id} has a missing source`);
    for (const target of t.targets)
      if (!def.states[target]) problems.push(`transition ${id} has a missing target ${target}`);
    const e = t.event;
    if (source && typeof e === 'object' && 'invoke' in e && !source.invoke.some((i) => i.uid === e.invoke)) {
      problems.push(`transition ${id} names invocation ${e.invoke} its source does not have`);
    }
  }
  return problems;
}

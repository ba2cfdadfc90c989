import { applyOps } from '../model/apply.ts';
import { exportXState } from '../model/export.ts';
import type { Op } from '../model/op-types.ts';
import type { MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';

/**
 * A code edit as ops: `next` (freshly imported from the code view, with new ids) against
 * `current`. States are matched by key under matched parents, so ids survive and other
 * people's pending ops still mean the same states; a parent with exactly one unmatched
 * old and one unmatched new child counts it as a rename. Transitions are matched by
 * source, trigger and position. The result is checked: if the ops do not reproduce
 * `next`'s config exactly, the fallback replaces the root's contents (still ops, still
 * undoable).
 */
export function diffToOps(current: MachineDefinition, next: MachineDefinition): Op[] {
  try {
    const ops = matchedDiff(current, next);
    if (same(applyOps(current, ops), next)) return ops;
  } catch {
    // An edge case the matcher orders wrongly (e.g. swapped keys): fall through.
  }
  return replaceAll(current, next);
}

const same = (a: MachineDefinition, b: MachineDefinition): boolean =>
  JSON.stringify(exportXState(a)) === JSON.stringify(exportXState(b));

export const STATE_FIELDS = [
  'entry',
  'exit',
  'invoke',
  'tags',
  'description',
  'meta',
  'xstateId',
  'output',
  'history',
] as const;
const TRANSITION_FIELDS = ['event', 'guard', 'actions', 'reenter', 'description', 'meta', 'order'] as const;
const eq = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function matchedDiff(current: MachineDefinition, next: MachineDefinition): Op[] {
  /** next id -> current id */
  const map = new Map<StateId, StateId>([[next.root, current.root]]);
  const renames: Op[] = [];
  const matchChildren = (nid: StateId, cid: StateId): void => {
    const n = next.states[nid] as StateNode;
    const c = current.states[cid] as StateNode;
    const oldByKey = new Map(c.children.map((id) => [(current.states[id] as StateNode).key, id]));
    const unmatchedNew = n.children.filter((id) => !oldByKey.has((next.states[id] as StateNode).key));
    const newKeys = new Set(n.children.map((id) => (next.states[id] as StateNode).key));
    const unmatchedOld = c.children.filter((id) => !newKeys.has((current.states[id] as StateNode).key));
    for (const child of n.children) {
      const old = oldByKey.get((next.states[child] as StateNode).key);
      if (old) map.set(child, old);
    }
    const [nn, oo] = [unmatchedNew[0], unmatchedOld[0]];
    if (
      unmatchedNew.length === 1 &&
      unmatchedOld.length === 1 &&
      nn &&
      oo &&
      next.states[nn]?.type === current.states[oo]?.type
    ) {
      map.set(nn, oo);
      renames.push({ type: 'state.rename', id: oo, key: (next.states[nn] as StateNode).key });
    }
    for (const child of n.children) {
      const old = map.get(child);
      if (old) matchChildren(child, old);
    }
  };
  matchChildren(next.root, current.root);
  const idOf = (nid: StateId): StateId => map.get(nid) ?? nid;
  // Invocations of matched states keep their uids by position, so invoke-outcome
  // transitions (which name a uid) match too.
  const uids = new Map<string, string>();
  for (const [nid, cid] of map) {
    const olds = (current.states[cid] as StateNode).invoke;
    (next.states[nid] as StateNode).invoke.forEach((inv, i) => {
      const old = olds[i];
      if (old) uids.set(inv.uid, old.uid);
    });
  }
  const event = (e: Transition['event']): Transition['event'] =>
    typeof e === 'object' && 'invoke' in e ? { ...e, invoke: uids.get(e.invoke) ?? e.invoke } : e;
  const fields = (n: StateNode): StateNode => ({
    ...n,
    invoke: n.invoke.map((inv) => ({ ...inv, uid: uids.get(inv.uid) ?? inv.uid })),
  });
  const tr = (t: Transition): Transition => ({ ...t, event: event(t.event) });
  const matchedOld = new Set(map.values());
  const ops: Op[] = [];

  // Transitions out of or into states that go, and transitions that no longer exist, first.
  const nextBySig = new Map<string, Transition[]>();
  for (const t of Object.values(next.transitions).map(tr)) {
    const sig = `${idOf(t.source)}|${JSON.stringify(t.event)}`;
    nextBySig.set(sig, [...(nextBySig.get(sig) ?? []), t]);
  }
  for (const list of nextBySig.values()) list.sort((a, b) => a.order - b.order);
  const currentBySig = new Map<string, Transition[]>();
  for (const t of Object.values(current.transitions)) {
    const sig = `${t.source}|${JSON.stringify(t.event)}`;
    currentBySig.set(sig, [...(currentBySig.get(sig) ?? []), t]);
  }
  const tMap = new Map<string, Transition>(); // current id -> next transition
  for (const [sig, list] of currentBySig) {
    list.sort((a, b) => a.order - b.order);
    const targets = nextBySig.get(sig) ?? [];
    list.forEach((t, i) => {
      const n = targets[i];
      if (n) tMap.set(t.id, n);
      else ops.push({ type: 'transition.delete', id: t.id });
    });
  }
  // A kept transition that touches a state about to go would vanish with it: take it out
  // now and add it back (same id) once the new states exist.
  const readd = new Set<string>();
  for (const cid of tMap.keys()) {
    const old = current.transitions[cid] as Transition;
    if ([old.source, ...old.targets].some((x) => !matchedOld.has(x))) {
      readd.add(cid);
      ops.push({ type: 'transition.delete', id: cid });
    }
  }
  for (const s of Object.values(current.states)) {
    if (!matchedOld.has(s.id) && s.parent !== null && matchedOld.has(s.parent))
      ops.push({ type: 'state.delete', id: s.id });
  }
  ops.push(...renames);

  // New states top-down, then types, fields and initial states.
  const walkNew = (nid: StateId): void => {
    const n = next.states[nid] as StateNode;
    n.children.forEach((child, index) => {
      if (!map.has(child)) {
        const c = next.states[child] as StateNode;
        ops.push({ type: 'state.add', id: child, parent: idOf(nid), key: c.key, stateType: c.type, index });
      } else {
        const old = current.states[idOf(child)] as StateNode;
        const pos = (current.states[idOf(nid)] as StateNode).children.indexOf(old.id);
        if (pos !== index) ops.push({ type: 'state.move', id: old.id, parent: idOf(nid), index });
      }
      walkNew(child);
    });
  };
  walkNew(next.root);
  for (const n of Object.values(next.states).map(fields)) {
    const id = idOf(n.id);
    const old = current.states[id];
    if (old && old.type !== n.type) ops.push({ type: 'state.setType', id, stateType: n.type });
    const changes: Record<string, unknown> = {};
    for (const f of STATE_FIELDS) if (!eq(old ? old[f] : emptyValue(f), n[f])) changes[f] = n[f];
    const ht = n.historyTarget === null ? null : idOf(n.historyTarget);
    if ((old?.historyTarget ?? null) !== ht) changes.historyTarget = ht;
    if (Object.keys(changes).length > 0) ops.push({ type: 'state.update', id, changes });
    const initial = n.initial === null ? null : idOf(n.initial);
    if ((old?.initial ?? null) !== initial) ops.push({ type: 'state.setInitial', id, initial });
  }

  // Transitions: update the matched, add the new.
  const used = new Set<string>();
  for (const [cid, n] of tMap) {
    used.add(n.id);
    if (readd.has(cid)) {
      ops.push({
        type: 'transition.add',
        transition: { ...n, id: cid, source: idOf(n.source), targets: n.targets.map(idOf) },
      });
      continue;
    }
    const old = current.transitions[cid] as Transition;
    const targets = n.targets.map(idOf);
    if (!eq(old.targets, targets)) ops.push({ type: 'transition.retarget', id: cid, targets });
    const changes: Record<string, unknown> = {};
    for (const f of TRANSITION_FIELDS) if (!eq(old[f], n[f])) changes[f] = n[f];
    if (Object.keys(changes).length > 0) ops.push({ type: 'transition.update', id: cid, changes });
  }
  for (const n of Object.values(next.transitions).map(tr)) {
    if (!used.has(n.id))
      ops.push({ type: 'transition.add', transition: { ...n, source: idOf(n.source), targets: n.targets.map(idOf) } });
  }
  if (current.name !== next.name || current.machineId !== next.machineId || !eq(current.context, next.context)) {
    ops.push({
      type: 'machine.update',
      changes: { name: next.name, machineId: next.machineId, context: next.context },
    });
  }
  return ops;
}

function emptyValue(f: (typeof STATE_FIELDS)[number]): unknown {
  return f === 'entry' || f === 'exit' || f === 'invoke' || f === 'tags' ? [] : null;
}

/** Everything under the root out, `next`'s contents in (with `next`'s ids). */
function replaceAll(current: MachineDefinition, next: MachineDefinition): Op[] {
  const ops: Op[] = [];
  const root = current.states[current.root] as StateNode;
  for (const t of Object.values(current.transitions))
    if (t.source === current.root && t.targets.every((x) => x === current.root))
      ops.push({ type: 'transition.delete', id: t.id });
  for (const c of root.children) ops.push({ type: 'state.delete', id: c });
  const nroot = next.states[next.root] as StateNode;
  const collect = (id: StateId, out: StateNode[]): StateNode[] => {
    const s = next.states[id] as StateNode;
    out.push({ ...s, historyTarget: null });
    for (const c of s.children) collect(c, out);
    return out;
  };
  for (const c of nroot.children)
    ops.push({ type: 'state.insert', parent: current.root, index: null, states: collect(c, []), transitions: [] });
  const remap = (id: StateId): StateId => (id === next.root ? current.root : id);
  for (const s of Object.values(next.states)) {
    if (s.historyTarget !== null)
      ops.push({ type: 'state.update', id: remap(s.id), changes: { historyTarget: remap(s.historyTarget) } });
  }
  if (root.type !== nroot.type) ops.push({ type: 'state.setType', id: current.root, stateType: nroot.type });
  const changes: Record<string, unknown> = {};
  for (const f of STATE_FIELDS) if (!eq(root[f], nroot[f])) changes[f] = nroot[f];
  if (Object.keys(changes).length > 0) ops.push({ type: 'state.update', id: current.root, changes });
  ops.push({ type: 'state.setInitial', id: current.root, initial: nroot.initial });
  for (const t of Object.values(next.transitions))
    ops.push({ type: 'transition.add', transition: { ...t, source: remap(t.source), targets: t.targets.map(remap) } });
  ops.push({ type: 'machine.update', changes: { name: next.name, machineId: next.machineId, context: next.context } });
  return ops;
}

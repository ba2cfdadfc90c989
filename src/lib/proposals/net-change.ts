import { STATE_FIELDS } from '../canvas-ops/diff.ts';
import type { Op } from '../model/op-types.ts';
import { resolveOp } from '../model/resolve.ts';
import type { MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';

/**
 * A draft's net change as ops, by id: the draft was forked with the target's ids, so a
 * state or transition means the same thing on both sides and each difference between the
 * base (the target at the fork) and the draft becomes the one op that makes it (a rename,
 * a move, a field set, an add, a delete) and nothing else, so whatever else happened to
 * the target meanwhile stays. Positions are taken relative to `onto` (the target as it is
 * now): a state added after all its base siblings goes at the end (as adding a child
 * does), any other new or moved state after its nearest earlier sibling there, so a
 * position the target no longer has never drops it. Each op is tried on `onto` as it is made (as
 * the log will replay it), so later ops see earlier ones.
 */

const TRANSITION_FIELDS = ['event', 'guard', 'actions', 'reenter', 'description', 'meta', 'order'] as const;
const eq = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function netChange(base: MachineDefinition, draft: MachineDefinition, onto: MachineDefinition = base): Op[] {
  const ops: Op[] = [];
  let cur = onto;
  const emit = (op: Op): void => {
    ops.push(op);
    cur = resolveOp(cur, op).definition;
  };
  const inBase = (id: StateId) => Object.hasOwn(base.states, id);
  const inDraft = (id: StateId) => Object.hasOwn(draft.states, id);
  const inCur = (id: StateId) => Object.hasOwn(cur.states, id);
  const survives = (id: StateId): boolean =>
    inDraft(id) || (base.states[id] as StateNode).children.some((c) => survives(c));

  // Transitions that go (or start elsewhere now: out, and back in below).
  const readd = new Set<string>();
  for (const [id, t] of Object.entries(base.transitions)) {
    const next = Object.hasOwn(draft.transitions, id) ? draft.transitions[id] : undefined;
    if (!next) emit({ type: 'transition.delete', id });
    else if (next.source !== t.source) {
      readd.add(id);
      emit({ type: 'transition.delete', id });
    }
  }
  // Whole subtrees that go, topmost first.
  for (const s of Object.values(base.states))
    if (s.parent !== null && !inDraft(s.id) && inDraft(s.parent) && !survives(s.id) && inCur(s.id))
      emit({ type: 'state.delete', id: s.id });
  // Renames (before adds, so a key given up is free for a new state).
  for (const s of Object.values(draft.states)) {
    const old = inBase(s.id) ? base.states[s.id] : undefined;
    if (old && old.parent !== null && old.key !== s.key) emit({ type: 'state.rename', id: s.id, key: s.key });
  }
  // New and moved states top-down, each after its nearest earlier sibling that exists now.
  const place = (parent: StateId, siblings: readonly StateId[], at: number): number => {
    const here = cur.states[parent]?.children ?? [];
    for (let i = at - 1; i >= 0; i--) {
      const pos = here.indexOf(siblings[i]!);
      if (pos >= 0) return pos + 1;
    }
    return 0;
  };
  const walk = (id: StateId): void => {
    const n = draft.states[id] as StateNode;
    n.children.forEach((child, at) => {
      const c = draft.states[child] as StateNode;
      if (!inBase(child)) {
        // Added after every state the base had there: at the end, as adding a child does.
        const last = n.children.slice(at + 1).every((x) => !inBase(x));
        const index = last ? null : place(id, n.children, at);
        emit({ type: 'state.add', id: child, parent: id, key: c.key, stateType: c.type, index });
      } else {
        const was = base.states[child] as StateNode;
        const baseOrder = (base.states[id]?.children ?? []).filter((x) => n.children.includes(x));
        const draftOrder = n.children.filter((x) => baseOrder.includes(x));
        const reordered = was.parent === id && baseOrder.indexOf(child) !== draftOrder.indexOf(child);
        if (inCur(child) && (was.parent !== id || reordered)) {
          const here = cur.states[id]?.children.filter((x) => x !== child) ?? [];
          const sibs = n.children.slice(0, at).filter((x) => here.includes(x));
          const index = sibs.length === 0 ? 0 : here.indexOf(sibs[sibs.length - 1]!) + 1;
          emit({ type: 'state.move', id: child, parent: id, index });
        }
      }
      walk(child);
    });
  };
  walk(draft.root);
  // What is left of states that go (their survivors have moved out).
  for (const s of Object.values(base.states))
    if (s.parent !== null && !inDraft(s.id) && inCur(s.id)) emit({ type: 'state.delete', id: s.id });
  // Types, fields and initial states.
  for (const n of Object.values(draft.states)) {
    const old = inBase(n.id) ? base.states[n.id] : undefined;
    if (old && old.type !== n.type) emit({ type: 'state.setType', id: n.id, stateType: n.type });
    const changes: Record<string, unknown> = {};
    for (const f of [...STATE_FIELDS, 'historyTarget'] as const)
      if (!eq(old ? old[f] : emptyValue(f), n[f])) changes[f] = n[f];
    if (Object.keys(changes).length > 0) emit({ type: 'state.update', id: n.id, changes });
    if ((old?.initial ?? null) !== n.initial) emit({ type: 'state.setInitial', id: n.id, initial: n.initial });
  }
  // Transitions: the new (and re-sourced) in, the kept retargeted and updated.
  for (const t of Object.values(draft.transitions)) {
    const old = Object.hasOwn(base.transitions, t.id) ? base.transitions[t.id] : undefined;
    if (!old || readd.has(t.id)) {
      emit({ type: 'transition.add', transition: t });
      continue;
    }
    if (!eq(old.targets, t.targets)) emit({ type: 'transition.retarget', id: t.id, targets: t.targets });
    const changes: Partial<Transition> = {};
    for (const f of TRANSITION_FIELDS) if (!eq(old[f], t[f])) (changes as Record<string, unknown>)[f] = t[f];
    if (Object.keys(changes).length > 0) emit({ type: 'transition.update', id: t.id, changes });
  }
  const machine: Record<string, unknown> = {};
  if (base.name !== draft.name) machine.name = draft.name;
  if (base.machineId !== draft.machineId) machine.machineId = draft.machineId;
  if (!eq(base.context, draft.context)) machine.context = draft.context;
  if (Object.keys(machine).length > 0) emit({ type: 'machine.update', changes: machine });
  return ops;
}

function emptyValue(f: (typeof STATE_FIELDS)[number] | 'historyTarget'): unknown {
  return f === 'entry' || f === 'exit' || f === 'invoke' || f === 'tags' ? [] : null;
}

import { applyOp } from './apply.ts';
import { randomIds } from './ids.ts';
import { importXState } from './import.ts';
import type { Op, StateFields, TransitionFields } from './op-types.ts';
import { byOrder, keyPathOf, subtree } from './tree.ts';
import type {
  IdGen,
  Invocation,
  JsonObject,
  MachineDefinition,
  StateId,
  Transition,
  TransitionEvent,
} from './types.ts';

/**
 * A code edit becomes ops: given the current definition and the config someone typed,
 * the ops that turn one into the other, so the edit is shared, committed and undone like
 * any canvas edit. States are matched by key path (so ids survive edits that keep a
 * state's path; a renamed state is a delete plus an add), invocations by position,
 * transitions by source, trigger and position among that trigger's transitions.
 * Afterwards `exportXState(applyOps(current, ops))` deep-equals `exportXState` of the
 * typed config. Throws `ImportError` when the config cannot be imported.
 */
export function opsFromConfig(current: MachineDefinition, config: JsonObject, ids: IdGen = randomIds): Op[] {
  const wanted = importXState(config, { ids });
  const ops: Op[] = [];
  let work = current;
  const emit = (op: Op): void => {
    work = applyOp(work, op);
    ops.push(op);
  };

  // States: wanted id -> current id, by key path.
  const byPath = new Map<string, StateId>();
  for (const id of Object.keys(current.states)) byPath.set(keyPathOf(current, id).join('.'), id);
  const match = new Map<StateId, StateId>();
  for (const id of subtree(wanted, wanted.root)) {
    const existing = byPath.get(keyPathOf(wanted, id).join('.'));
    if (existing !== undefined && (current.states[existing]?.parent === null) === (wanted.states[id]?.parent === null))
      match.set(id, existing);
  }
  const kept = new Set(match.values());

  // Invocations keep their uid by position, so matched transitions keep naming them.
  const uidMap = new Map<string, string>();
  for (const [w, c] of match) {
    const mine = current.states[c]?.invoke ?? [];
    (wanted.states[w]?.invoke ?? []).forEach((inv, i) => uidMap.set(inv.uid, mine[i]?.uid ?? inv.uid));
  }
  const mapState = (id: StateId): StateId => match.get(id) ?? id;
  const mapEvent = (e: TransitionEvent): TransitionEvent =>
    typeof e === 'object' && 'invoke' in e ? { invoke: uidMap.get(e.invoke) ?? e.invoke, outcome: e.outcome } : e;
  const triggerKey = (def: MachineDefinition, t: Transition): string => {
    const e = t.event;
    if (typeof e === 'object' && 'invoke' in e)
      return `invoke:${def.states[t.source]?.invoke.findIndex((i) => i.uid === e.invoke) ?? -1}:${e.outcome}`;
    return JSON.stringify(e);
  };
  const slots = (def: MachineDefinition, source: (t: Transition) => StateId): Map<string, Transition> => {
    const groups = new Map<string, Transition[]>();
    for (const t of Object.values(def.transitions).sort(byOrder)) {
      const key = `${source(t)}\u0000${triggerKey(def, t)}`;
      groups.set(key, [...(groups.get(key) ?? []), t]);
    }
    const out = new Map<string, Transition>();
    for (const [key, list] of groups) list.forEach((t, i) => out.set(`${key}\u0000${i}`, t));
    return out;
  };
  const currentSlots = slots(current, (t) => t.source);
  const wantedSlots = slots(wanted, (t) => mapState(t.source));

  // 1. Transitions with no counterpart go first (they may name invocations about to change).
  for (const [slot, t] of currentSlots)
    if (!wantedSlots.has(slot) && work.transitions[t.id]) emit({ type: 'transition.delete', id: t.id });
  // 2. States with no counterpart (top-most only: a delete takes its subtree).
  for (const id of subtree(current, current.root)) {
    const s = work.states[id];
    if (s && !kept.has(id) && s.parent !== null && kept.has(s.parent)) emit({ type: 'state.delete', id });
  }
  // 3. New states, parents first.
  for (const id of subtree(wanted, wanted.root)) {
    if (match.has(id)) continue;
    const s = wanted.states[id];
    if (!s || s.parent === null) continue;
    emit({ type: 'state.add', id, parent: mapState(s.parent), key: s.key, stateType: s.type, index: null });
  }
  // 4. Children order, types, fields and initial states.
  for (const id of subtree(wanted, wanted.root)) {
    const w = wanted.states[id];
    const target = mapState(id);
    if (!w) continue;
    w.children.forEach((c, index) => {
      if (work.states[target]?.children[index] !== mapState(c))
        emit({ type: 'state.move', id: mapState(c), parent: target, index });
    });
    const have = work.states[target];
    if (!have) continue;
    if (have.type !== w.type) emit({ type: 'state.setType', id: target, stateType: w.type });
    const invoke: Invocation[] = w.invoke.map((inv) => ({ ...inv, uid: uidMap.get(inv.uid) ?? inv.uid }));
    const next: StateFields = {
      entry: w.entry,
      exit: w.exit,
      invoke,
      tags: w.tags,
      description: w.description,
      meta: w.meta,
      xstateId: w.xstateId,
      output: w.output,
      history: w.history,
      historyTarget: w.historyTarget === null ? null : mapState(w.historyTarget),
    };
    const changes = diffFields(have, next);
    if (Object.keys(changes).length > 0) emit({ type: 'state.update', id: target, changes });
    const initial = w.initial === null ? null : mapState(w.initial);
    if (have.initial !== initial) emit({ type: 'state.setInitial', id: target, initial });
  }
  // 5. Transitions: edit the matched ones in place, add the rest.
  for (const [slot, w] of wantedSlots) {
    const existing = currentSlots.get(slot);
    const targets = w.targets.map(mapState);
    const fields: TransitionFields = {
      event: mapEvent(w.event),
      guard: w.guard,
      actions: w.actions,
      reenter: w.reenter,
      description: w.description,
      meta: w.meta,
      order: w.order,
    };
    if (existing && work.transitions[existing.id]) {
      const changes = diffFields(existing, fields);
      if (Object.keys(changes).length > 0) emit({ type: 'transition.update', id: existing.id, changes });
      if (JSON.stringify(existing.targets) !== JSON.stringify(targets))
        emit({ type: 'transition.retarget', id: existing.id, targets });
    } else {
      emit({ type: 'transition.add', transition: { ...w, ...fields, source: mapState(w.source), targets } });
    }
  }
  // 6. Machine fields (the display name is not part of the config).
  const machine = diffFields(
    { machineId: current.machineId, context: current.context },
    { machineId: wanted.machineId, context: wanted.context },
  );
  if (Object.keys(machine).length > 0) emit({ type: 'machine.update', changes: machine });
  return ops;
}

function diffFields<T extends object>(have: T, want: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(want) as (keyof T)[]) {
    if (JSON.stringify(have[key]) !== JSON.stringify(want[key])) out[key] = want[key];
  }
  return out;
}

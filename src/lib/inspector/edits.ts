import { applyOps } from '../model/apply.ts';
import { randomIds } from '../model/ids.ts';
import type { Op } from '../model/op-types.ts';
import { addChildState, addTransition } from '../model/recipes.ts';
import { byOrder, keyPathOf, transitionsFrom } from '../model/tree.ts';
import type {
  HistoryKind,
  IdGen,
  Invocation,
  MachineDefinition,
  StateId,
  StateType,
  Transition,
  TransitionEvent,
} from '../model/types.ts';
import { pasteOps, type StateClip } from './clipboard.ts';
import { readActions, readGuard, readJsonObject, readTags, type Read } from './text.ts';

/**
 * What a person does in the Inspector, as data, and the model ops each one means. Every
 * edit becomes ordinary ops (undoable, shared through the op log, resolved on the server
 * like any other); an edit whose text does not read answers an error in words and no ops.
 */

export type TriggerKind = 'event' | 'always' | 'after';

export type InspectorEdit =
  | { kind: 'state.rename'; id: StateId; key: string }
  | { kind: 'state.type'; id: StateId; type: StateType }
  | { kind: 'state.history'; id: StateId; history: HistoryKind }
  | { kind: 'state.historyTarget'; id: StateId; target: StateId | null }
  | { kind: 'state.initial'; id: StateId; initial: StateId | null }
  | { kind: 'state.text'; id: StateId; field: 'entry' | 'exit' | 'tags' | 'description' | 'meta'; text: string }
  | { kind: 'state.addChild'; parent: StateId; type: StateType; newId?: StateId }
  | { kind: 'invoke.set'; id: StateId; index: number | null; src: string; invokeId: string; input: string }
  | { kind: 'invoke.remove'; id: StateId; index: number }
  | { kind: 'invoke.outcome'; id: StateId; index: number; outcome: 'done' | 'error'; target: StateId | null }
  | { kind: 'transition.add'; source: StateId; trigger: TriggerKind; value: string; target: StateId | null }
  | { kind: 'transition.trigger'; id: string; trigger: TriggerKind; value: string }
  | { kind: 'transition.targets'; id: string; targets: string }
  | { kind: 'transition.guard'; id: string; text: string }
  | { kind: 'transition.actions'; id: string; text: string }
  | { kind: 'transition.reenter'; id: string; reenter: boolean }
  | { kind: 'transition.description'; id: string; text: string }
  | { kind: 'transition.move'; id: string; by: -1 | 1 }
  | { kind: 'machine.id'; text: string }
  | { kind: 'machine.context'; text: string }
  | { kind: 'state.paste'; parent: StateId; clip: StateClip };

export type EditResult = { ok: true; ops: Op[] } | { ok: false; error: string };

const ok = (ops: Op[]): EditResult => ({ ok: true, ops });
const fail = (error: string): EditResult => ({ ok: false, error });

/** A trigger from the Inspector's two fields: an event name, `always`, or `after` a delay (ms or a name). */
export function readTrigger(trigger: TriggerKind, value: string): Read<TransitionEvent> {
  const v = value.trim();
  if (trigger === 'always') return { ok: true, value: { always: true } };
  if (trigger === 'after') {
    if (v === '') return { ok: false, error: 'a delay needs milliseconds or a delay name' };
    const n = Number(v);
    return { ok: true, value: { after: Number.isFinite(n) && n >= 0 && /^\d+$/.test(v) ? n : v } };
  }
  if (v === '') return { ok: false, error: 'an event needs a name' };
  return { ok: true, value: v };
}

/** `a.b` key paths (from the root) to state ids; `''` for the root itself. */
export function statePaths(def: MachineDefinition): Map<string, StateId> {
  const out = new Map<string, StateId>();
  for (const id of Object.keys(def.states)) out.set(keyPathOf(def, id).join('.'), id);
  return out;
}

export function pathOf(def: MachineDefinition, id: StateId): string {
  return def.states[id] ? keyPathOf(def, id).join('.') : id;
}

function transitionOf(def: MachineDefinition, id: string): Transition | null {
  return Object.hasOwn(def.transitions, id) ? (def.transitions[id] ?? null) : null;
}

export function opsForEdit(def: MachineDefinition, edit: InspectorEdit, ids: IdGen = randomIds): EditResult {
  if ('id' in edit && edit.kind.startsWith('state.') && !def.states[edit.id]) return fail('that state is gone');
  if (edit.kind.startsWith('transition.') && 'id' in edit && !transitionOf(def, edit.id))
    return fail('that transition is gone');
  switch (edit.kind) {
    case 'state.paste': {
      const parent = def.states[edit.parent];
      if (!parent) return fail('that state is gone');
      if (parent.type === 'history' || parent.type === 'final')
        return fail(`a ${parent.type} state cannot hold other states`);
      let ops: Op[];
      try {
        ops = pasteOps(def, edit.clip, edit.parent, ids);
        applyOps(def, ops);
      } catch (err) {
        return fail(`the copied state cannot be pasted here: ${err instanceof Error ? err.message : String(err)}`);
      }
      return ops.length > 0 ? ok(ops) : fail('nothing to paste: copy a state first');
    }
    case 'state.rename':
      return edit.key.trim() === ''
        ? fail('a state needs a name')
        : ok([{ type: 'state.rename', id: edit.id, key: edit.key.trim() }]);
    case 'state.type': {
      const s = def.states[edit.id];
      if (!s || s.type === edit.type) return ok([]);
      const ops: Op[] = [];
      if (edit.type === 'parallel' || edit.type === 'history' || edit.type === 'final' || edit.type === 'atomic')
        if (s.initial !== null) ops.push({ type: 'state.setInitial', id: edit.id, initial: null });
      ops.push({ type: 'state.setType', id: edit.id, stateType: edit.type });
      if (edit.type === 'compound' && s.initial === null && s.children[0] !== undefined)
        ops.push({ type: 'state.setInitial', id: edit.id, initial: s.children[0] });
      if (edit.type === 'history' && s.history === null)
        ops.push({ type: 'state.update', id: edit.id, changes: { history: 'shallow' } });
      if (edit.type !== 'history' && (s.history !== null || s.historyTarget !== null))
        ops.push({ type: 'state.update', id: edit.id, changes: { history: null, historyTarget: null } });
      // A parent whose initial child became a history state picks another.
      const parent = s.parent === null ? undefined : def.states[s.parent];
      if (edit.type === 'history' && parent && parent.initial === edit.id) {
        const other = parent.children.find((c) => c !== edit.id && def.states[c]?.type !== 'history') ?? null;
        ops.push({ type: 'state.setInitial', id: parent.id, initial: other });
      }
      return ok(ops);
    }
    case 'state.history':
      return ok([{ type: 'state.update', id: edit.id, changes: { history: edit.history } }]);
    case 'state.historyTarget':
      return ok([{ type: 'state.update', id: edit.id, changes: { historyTarget: edit.target } }]);
    case 'state.initial':
      return ok([{ type: 'state.setInitial', id: edit.id, initial: edit.initial }]);
    case 'state.text': {
      const { id, field, text } = edit;
      if (field === 'entry' || field === 'exit') {
        const r = readActions(text);
        return r.ok ? ok([{ type: 'state.update', id, changes: { [field]: r.value } }]) : fail(r.error);
      }
      if (field === 'tags') return ok([{ type: 'state.update', id, changes: { tags: readTags(text) } }]);
      if (field === 'description')
        return ok([{ type: 'state.update', id, changes: { description: text.trim() === '' ? null : text } }]);
      const r = readJsonObject(text, 'meta');
      return r.ok ? ok([{ type: 'state.update', id, changes: { meta: r.value } }]) : fail(r.error);
    }
    case 'state.addChild': {
      if (!def.states[edit.parent]) return fail('that state is gone');
      const { ops } = addChildState(def, edit.parent, {
        type: edit.type,
        key:
          edit.type === 'history'
            ? 'hist'
            : edit.type === 'final'
              ? 'done'
              : edit.type === 'parallel'
                ? 'regions'
                : undefined,
        ids: edit.newId ? () => edit.newId as string : ids,
      });
      return ok(uniqueKeys(def, ops));
    }
    case 'invoke.set': {
      const s = def.states[edit.id];
      if (!s) return fail('that state is gone');
      if (edit.src.trim() === '') return fail('an invocation needs the name of an actor (src)');
      let input: Invocation['input'];
      if (edit.input.trim() !== '') {
        try {
          input = JSON.parse(edit.input) as Invocation['input'];
        } catch (err) {
          return fail(`input is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      const list = [...s.invoke];
      const base: Invocation =
        edit.index !== null && list[edit.index] ? { ...list[edit.index]! } : { uid: ids('invocation'), src: '' };
      const next: Invocation = { uid: base.uid, src: edit.src.trim() };
      if (edit.invokeId.trim() !== '') next.id = edit.invokeId.trim();
      if (base.systemId !== undefined) next.systemId = base.systemId;
      if (input !== undefined) next.input = input;
      if (edit.index !== null && list[edit.index]) list[edit.index] = next;
      else list.push(next);
      return ok([{ type: 'state.update', id: edit.id, changes: { invoke: list } }]);
    }
    case 'invoke.remove': {
      const s = def.states[edit.id];
      const inv = s?.invoke[edit.index];
      if (!s || !inv) return fail('that invocation is gone');
      const ops: Op[] = Object.values(def.transitions)
        .filter(
          (t) => t.source === s.id && typeof t.event === 'object' && 'invoke' in t.event && t.event.invoke === inv.uid,
        )
        .map((t) => ({ type: 'transition.delete', id: t.id }));
      ops.push({ type: 'state.update', id: s.id, changes: { invoke: s.invoke.filter((_, i) => i !== edit.index) } });
      return ok(ops);
    }
    case 'invoke.outcome': {
      const s = def.states[edit.id];
      const inv = s?.invoke[edit.index];
      if (!s || !inv) return fail('that invocation is gone');
      const existing = Object.values(def.transitions)
        .filter((t) => t.source === s.id && typeof t.event === 'object' && 'invoke' in t.event)
        .filter((t) => (t.event as { invoke: string; outcome: string }).invoke === inv.uid)
        .find((t) => (t.event as { outcome: string }).outcome === edit.outcome);
      if (edit.target === null) return ok(existing ? [{ type: 'transition.delete', id: existing.id }] : []);
      if (existing) return ok([{ type: 'transition.retarget', id: existing.id, targets: [edit.target] }]);
      return ok([addTransition(def, s.id, { invoke: inv.uid, outcome: edit.outcome }, [edit.target], { ids }).op]);
    }
    case 'transition.add': {
      if (!def.states[edit.source]) return fail('that state is gone');
      const e = readTrigger(edit.trigger, edit.value);
      if (!e.ok) return fail(e.error);
      return ok([addTransition(def, edit.source, e.value, edit.target === null ? [] : [edit.target], { ids }).op]);
    }
    case 'transition.trigger': {
      const e = readTrigger(edit.trigger, edit.value);
      return e.ok ? ok([{ type: 'transition.update', id: edit.id, changes: { event: e.value } }]) : fail(e.error);
    }
    case 'transition.targets': {
      const paths = statePaths(def);
      const targets: StateId[] = [];
      for (const p of edit.targets
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '')) {
        const id = paths.get(p);
        if (id === undefined) return fail(`no state at "${p}" (write key paths from the root, like a.b)`);
        targets.push(id);
      }
      return ok([{ type: 'transition.retarget', id: edit.id, targets }]);
    }
    case 'transition.guard': {
      const r = readGuard(edit.text);
      return r.ok ? ok([{ type: 'transition.update', id: edit.id, changes: { guard: r.value } }]) : fail(r.error);
    }
    case 'transition.actions': {
      const r = readActions(edit.text);
      return r.ok ? ok([{ type: 'transition.update', id: edit.id, changes: { actions: r.value } }]) : fail(r.error);
    }
    case 'transition.reenter':
      return ok([{ type: 'transition.update', id: edit.id, changes: { reenter: edit.reenter } }]);
    case 'transition.description':
      return ok([
        {
          type: 'transition.update',
          id: edit.id,
          changes: { description: edit.text.trim() === '' ? null : edit.text },
        },
      ]);
    case 'transition.move': {
      const t = transitionOf(def, edit.id) as Transition;
      const same = sameTrigger(def, t);
      const at = same.findIndex((x) => x.id === t.id);
      const other = same[at + edit.by];
      if (!other) return ok([]);
      return ok([
        { type: 'transition.update', id: t.id, changes: { order: other.order } },
        { type: 'transition.update', id: other.id, changes: { order: t.order } },
      ]);
    }
    case 'machine.id': {
      const v = edit.text.trim();
      return ok([{ type: 'machine.update', changes: { machineId: v === '' ? null : v } }]);
    }
    case 'machine.context': {
      const r = readJsonObject(edit.text, 'context');
      return r.ok ? ok([{ type: 'machine.update', changes: { context: r.value } }]) : fail(r.error);
    }
  }
}

/** The source's transitions for the same trigger as `t`, in priority order (the order that picks a guard). */
export function sameTrigger(def: MachineDefinition, t: Transition): Transition[] {
  const key = JSON.stringify(t.event);
  return transitionsFrom(def, t.source)
    .filter((x) => JSON.stringify(x.event) === key)
    .sort(byOrder);
}

/** Fresh keys for added states whose default key a sibling already has. */
function uniqueKeys(def: MachineDefinition, ops: Op[]): Op[] {
  return ops.map((op) => {
    if (op.type !== 'state.add') return op;
    const taken = new Set((def.states[op.parent]?.children ?? []).map((c) => def.states[c]?.key));
    let key = op.key;
    for (let n = 2; taken.has(key); n++) key = `${op.key}${n}`;
    return { ...op, key };
  });
}

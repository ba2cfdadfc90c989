import { applyOp, applyRun } from '../model/apply.ts';
import type { Op } from '../model/op-types.ts';
import type { MachineDefinition, StateId, TransitionEvent } from '../model/types.ts';
import type { AuthoredOp } from './types.ts';

/**
 * An edit batch in words ("renamed idle → waiting", "added 3 states"), computed on the
 * client from the ops and the definition they applied to: ops name states by id, so
 * the names come from the definition before (or after) the batch.
 */

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function keyOf(def: MachineDefinition | null, id: StateId): string | null {
  const s = def && Object.hasOwn(def.states, id) ? def.states[id] : undefined;
  return s ? s.key || '(root)' : null;
}

function eventName(event: TransitionEvent): string {
  if (typeof event === 'string') return event;
  if ('always' in event) return 'always';
  if ('after' in event) return `after ${event.after}`;
  if ('done' in event) return 'done';
  return `invoke ${event.outcome}`;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What a whole-machine replace changed, state by state and transition by transition (by id). */
function replaceDiff(before: MachineDefinition, after: MachineDefinition) {
  const added: string[] = [];
  const deleted: string[] = [];
  const renamed: string[] = [];
  const changedStates: string[] = [];
  const changed: string[] = [];
  for (const [id, s] of Object.entries(after.states)) {
    const old = Object.hasOwn(before.states, id) ? before.states[id] : undefined;
    if (!old) {
      added.push(s.key || '(root)');
      changed.push(id);
    } else if (old.key !== s.key) {
      renamed.push(`${old.key || '(root)'} → ${s.key || '(root)'}`);
      changed.push(id);
    } else if (!sameJson({ ...old, children: [] }, { ...s, children: [] })) {
      // (a parent whose children changed is told by the states added or deleted)
      changedStates.push(s.key || '(root)');
      changed.push(id);
    }
  }
  for (const [id, s] of Object.entries(before.states)) if (!Object.hasOwn(after.states, id)) deleted.push(s.key);
  const addedTransitions: string[] = [];
  let changedTransitions = 0;
  let deletedTransitions = 0;
  for (const [id, t] of Object.entries(after.transitions)) {
    const old = Object.hasOwn(before.transitions, id) ? before.transitions[id] : undefined;
    if (!old) addedTransitions.push(eventName(t.event));
    else if (!sameJson(old, t)) changedTransitions++;
    else continue;
    changed.push(id);
  }
  for (const id of Object.keys(before.transitions)) if (!Object.hasOwn(after.transitions, id)) deletedTransitions++;
  const empty =
    added.length + deleted.length + renamed.length + changedStates.length + addedTransitions.length === 0 &&
    changedTransitions + deletedTransitions === 0;
  return {
    added,
    deleted,
    renamed,
    changedStates,
    changed,
    addedTransitions,
    changedTransitions,
    deletedTransitions,
    empty,
  };
}

/** The parts of one batch's summary, in the order they first appear. */
export function summarizeOps(before: MachineDefinition | null, ops: readonly Op[], after: MachineDefinition | null) {
  const added: string[] = [];
  const deleted: string[] = [];
  const renamed: string[] = [];
  const moved: string[] = [];
  const changedStates = new Set<string>();
  const addedTransitions: string[] = [];
  let changedTransitions = 0;
  let deletedTransitions = 0;
  let machine: string | null = null;
  const changed = new Set<string>();
  for (const op of ops) {
    switch (op.type) {
      case 'state.add':
        added.push(op.key);
        changed.add(op.id);
        break;
      case 'state.insert':
        for (const s of op.states) {
          added.push(s.key);
          changed.add(s.id);
        }
        for (const t of op.transitions) changed.add(t.id);
        break;
      case 'state.delete':
        deleted.push(keyOf(before, op.id) ?? 'a state');
        break;
      case 'state.rename':
        renamed.push(`${keyOf(before, op.id) ?? 'a state'} → ${op.key}`);
        changed.add(op.id);
        break;
      case 'state.move':
        moved.push(keyOf(after, op.id) ?? keyOf(before, op.id) ?? 'a state');
        changed.add(op.id);
        break;
      case 'state.setType':
      case 'state.setInitial':
      case 'state.update':
        changedStates.add(keyOf(after, op.id) ?? keyOf(before, op.id) ?? 'a state');
        changed.add(op.id);
        break;
      case 'transition.add':
        addedTransitions.push(eventName(op.transition.event));
        changed.add(op.transition.id);
        break;
      case 'transition.update':
      case 'transition.retarget':
        changedTransitions++;
        changed.add(op.id);
        break;
      case 'transition.delete':
        deletedTransitions++;
        break;
      case 'machine.update':
        machine = op.changes.name !== undefined ? `renamed the machine to ${op.changes.name}` : 'changed the machine';
        break;
      case 'machine.replace': {
        // A replace over a machine that had states (a restore, an import over it) is
        // told as what it changed; the first one, or one changing nothing, as itself.
        const from = before && (before.states[before.root]?.children.length ?? 0) > 0 ? before : null;
        const diff = from ? replaceDiff(from, op.definition) : null;
        if (!diff || diff.empty) {
          machine = 'replaced the whole machine';
          break;
        }
        added.push(...diff.added);
        deleted.push(...diff.deleted);
        renamed.push(...diff.renamed);
        diff.changed.forEach((id) => changed.add(id));
        diff.changedStates.forEach((k) => changedStates.add(k));
        addedTransitions.push(...diff.addedTransitions);
        changedTransitions += diff.changedTransitions;
        deletedTransitions += diff.deletedTransitions;
        break;
      }
    }
  }
  const parts: string[] = [];
  if (machine) parts.push(machine);
  if (added.length === 1) parts.push(`added state ${added[0]}`);
  else if (added.length > 1) parts.push(`added ${plural(added.length, 'state')}`);
  if (renamed.length === 1) parts.push(`renamed ${renamed[0]}`);
  else if (renamed.length > 1) parts.push(`renamed ${plural(renamed.length, 'state')}`);
  if (deleted.length === 1) parts.push(`deleted ${deleted[0]}`);
  else if (deleted.length > 1) parts.push(`deleted ${plural(deleted.length, 'state')}`);
  if (moved.length === 1) parts.push(`moved ${moved[0]}`);
  else if (moved.length > 1) parts.push(`moved ${plural(moved.length, 'state')}`);
  if (changedStates.size === 1) parts.push(`changed ${[...changedStates][0]}`);
  else if (changedStates.size > 1) parts.push(`changed ${plural(changedStates.size, 'state')}`);
  if (addedTransitions.length === 1) parts.push(`added a transition on ${addedTransitions[0]}`);
  else if (addedTransitions.length > 1) parts.push(`added ${plural(addedTransitions.length, 'transition')}`);
  if (changedTransitions > 0) parts.push(`changed ${plural(changedTransitions, 'transition')}`);
  if (deletedTransitions > 0) parts.push(`deleted ${plural(deletedTransitions, 'transition')}`);
  return { text: parts.length > 0 ? parts.join(', ') : 'made no change', changed: [...changed] };
}

/** Consecutive ops of one batch, in seq order. */
export function batchesOf(ops: readonly AuthoredOp[]): AuthoredOp[][] {
  const out: AuthoredOp[][] = [];
  for (const op of ops) {
    const last = out[out.length - 1];
    if (last && last[0]?.batchId === op.batchId && last[last.length - 1]!.seq + 1 === op.seq) last.push(op);
    else out.push([op]);
  }
  return out;
}

/**
 * Applies ops the way the server's fold does: an op that no longer applies is skipped.
 * When every op applies (the usual batch), in one draft (`applyRun`): op by op, each op
 * copied the whole record, and a pasted 1,000-state chart's batches cost a second of the
 * page's time at every peer while the timeline summarised them.
 */
export function foldOps(def: MachineDefinition, ops: readonly Op[]): MachineDefinition {
  try {
    return applyRun(def, ops);
  } catch {
    // Some op no longer applies: go op by op, skipping it.
  }
  let current = def;
  for (const op of ops) {
    try {
      current = applyOp(current, op);
    } catch {
      // Skipped, as the checkpoint skips it.
    }
  }
  return current;
}

import type { Op } from '../model/op-types.ts';
import { resolveOp } from '../model/resolve.ts';
import type { MachineDefinition } from '../model/types.ts';

/**
 * A proposal's merge, computed on the client (the model is TypeScript; the database only
 * orders ops): the net change is the ops between the target at the proposal's base seq
 * and the draft now, by id (net-change.ts). The draft was forked with the target's ids, so those ops address the
 * same states as the target's own log, and appended at the head they rebase the way every
 * op in the server-ordered log does (resolveOp). What no longer applies (its state was
 * deleted meanwhile, a move would now make a cycle) is read back from the log and listed,
 * never silently dropped.
 */

export { netChange } from './net-change.ts';

/** One op of a merge that did not land as written. */
export interface NotApplied {
  /** Its place in the merge's batch, from 0. */
  index: number;
  op: Op;
  /** Why, in words (the model's reason). */
  reason: string;
  /** Whether part of it still landed (a key taken meanwhile got a `-2` suffix). */
  mended: boolean;
}

export interface MergeOutcome {
  /** The target after the merge's batch. */
  definition: MachineDefinition;
  notApplied: NotApplied[];
}

/**
 * How a merge's batch lands on `before` (the target just before the batch in the log):
 * op by op through resolveOp, as every client and the checkpoint replay it.
 */
export function mergeOutcome(before: MachineDefinition, ops: readonly Op[]): MergeOutcome {
  let definition = before;
  const notApplied: NotApplied[] = [];
  ops.forEach((op, index) => {
    const resolved = resolveOp(definition, op);
    definition = resolved.definition;
    if (resolved.error)
      notApplied.push({ index, op, reason: resolved.error.message, mended: resolved.applied.length > 0 });
  });
  return { definition, notApplied };
}

import { applyOp, applyOps } from '../model/apply.ts';
import { invert, invertRun } from '../model/invert.ts';
import { OpError, type Op } from '../model/op-types.ts';
import { resolveOp } from '../model/resolve.ts';
import type { MachineDefinition } from '../model/types.ts';
import type { OpModel } from './types.ts';

/** What an op was meant to do, in words, for telling its author it was dropped. */
function intentOf(op: Op): string {
  switch (op.type) {
    case 'state.add':
      return `adding state "${op.key}"`;
    case 'state.insert':
      return `pasting state "${op.states[0]?.key ?? ''}"`;
    case 'state.delete':
      return 'deleting a state';
    case 'state.rename':
      return `renaming a state to "${op.key}"`;
    case 'state.move':
      return 'moving a state';
    case 'state.setType':
      return `making a state ${op.stateType}`;
    case 'state.setInitial':
      return 'choosing an initial state';
    case 'state.update':
      return 'editing a state';
    case 'transition.add':
      return typeof op.transition.event === 'string'
        ? `adding transition "${op.transition.event}"`
        : 'adding a transition';
    case 'transition.update':
      return 'editing a transition';
    case 'transition.retarget':
      return 'changing where a transition goes';
    case 'transition.delete':
      return 'deleting a transition';
    case 'machine.update':
      return 'editing the machine';
    case 'machine.replace':
      return 'replacing the whole machine';
    default:
      return 'an edit';
  }
}

const WHY: Partial<Record<OpError['code'], string>> = {
  unknown_state: 'a state it uses was deleted by someone else',
  unknown_transition: 'the transition was deleted by someone else',
  unknown_invocation: 'the invocation was removed by someone else',
  cycle: 'someone else moved the states so that it would put a state inside itself',
  in_use: 'what it removes is now in use',
};

/** "Your edit (adding transition "GO") was dropped: a state it uses was deleted by someone else." */
export function explainDropped(op: Op, error: unknown): string {
  const why = error instanceof OpError ? (WHY[error.code] ?? error.message) : 'it no longer applies';
  return `Your edit (${intentOf(op)}) was dropped: ${why}.`;
}

/** The collaboration core over Chartroom's statechart model (src/lib/model). */
export const chartroomModel: OpModel<MachineDefinition, Op> = {
  apply: applyOp,
  applyAll: applyOps,
  invert,
  invertAll: (before, ops) => invertRun(before, ops).inverse,
  resolve(doc, op) {
    const landed = resolveOp(doc, op);
    return { doc: landed.definition, applied: landed.applied, error: landed.error };
  },
  explain: explainDropped,
};

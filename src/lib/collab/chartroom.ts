import { applyOp } from '../model/apply.ts';
import { invert } from '../model/invert.ts';
import type { Op } from '../model/op-types.ts';
import type { MachineDefinition } from '../model/types.ts';
import type { OpModel } from './types.ts';

/** The collaboration core over Chartroom's statechart model (src/lib/model). */
export const chartroomModel: OpModel<MachineDefinition, Op> = {
  apply: applyOp,
  invert,
};

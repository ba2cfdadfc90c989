import { applyOp, applyRun } from './apply.ts';
import { OpError, type Op } from './op-types.ts';
import type { MachineDefinition, StateId } from './types.ts';

/**
 * How an op from the server-ordered log lands on the definition before it. Every client
 * and the checkpoint replay run this same function on the same log, so they make the
 * same choice:
 * - the op applies as written: it is kept;
 * - it only collides with a sibling's key (two people added `state3` under one parent at
 *   once, or renamed or moved a state onto a taken key): the key gets the first free
 *   `-2`, `-3`, ... suffix, so both states survive;
 * - anything else (its state or target was deleted meanwhile, a move would now make a
 *   cycle): it becomes a no-op, and `error` says why, for its author.
 */
export interface ResolvedOp {
  definition: MachineDefinition;
  /** What was applied: the op itself, its key-suffixed form, or nothing. */
  applied: Op[];
  /** Why the op did not apply as written (null when it did). */
  error: OpError | null;
}

/** The first key under `parent` that no child other than `self` uses: `key`, `key-2`, `key-3`, ... */
export function freeKey(def: MachineDefinition, parent: StateId, key: string, self: StateId | null = null): string {
  const node = def.states[parent];
  const taken = new Set((node?.children ?? []).filter((c) => c !== self).map((c) => def.states[c]?.key));
  if (!taken.has(key)) return key;
  for (let n = 2; ; n++) if (!taken.has(`${key}-${n}`)) return `${key}-${n}`;
}

/** The op with its colliding key replaced, or null when it is not a key collision we can mend. */
function withFreeKey(def: MachineDefinition, op: Op): Op[] | null {
  switch (op.type) {
    case 'state.add':
      return [{ ...op, key: freeKey(def, op.parent, op.key) }];
    case 'state.rename': {
      const parent = def.states[op.id]?.parent;
      return parent ? [{ ...op, key: freeKey(def, parent, op.key, op.id) }] : null;
    }
    case 'state.insert': {
      const [top, ...rest] = op.states;
      if (!top) return null;
      return [{ ...op, states: [{ ...top, key: freeKey(def, op.parent, top.key) }, ...rest] }];
    }
    case 'state.move': {
      const node = def.states[op.id];
      if (!node) return null;
      const key = freeKey(def, op.parent, node.key, op.id);
      return key === node.key ? null : [{ type: 'state.rename', id: op.id, key }, op];
    }
    default:
      return null;
  }
}

function applyList(def: MachineDefinition, ops: readonly Op[]): MachineDefinition {
  return ops.reduce(applyOp, def);
}

export function resolveOp(def: MachineDefinition, op: Op): ResolvedOp {
  try {
    return { definition: applyOp(def, op), applied: [op], error: null };
  } catch (err) {
    if (!(err instanceof OpError)) throw err;
    if (err.code === 'duplicate_key') {
      const mended = withFreeKey(def, op);
      if (mended) {
        try {
          return { definition: applyList(def, mended), applied: mended, error: err };
        } catch (again) {
          if (!(again instanceof OpError)) throw again;
        }
      }
    }
    return { definition: def, applied: [], error: err };
  }
}

/** Ops replayed in one draft at a time (see replayResolved). */
const REPLAY_RUN = 128;

/**
 * Replays a log (or any op list) with `resolveOp`: what clients and checkpoints compute.
 * Most ops apply as written, so the log goes in runs of REPLAY_RUN ops, each in one draft
 * (`applyRun`: the same result as op by op, with the records copied once per run instead
 * of once per op, which made a 100,000-op checkpoint of a 1,000-state chart take minutes).
 * When an op of a run does not apply as written, applyRun throws and leaves its input as it
 * was; the ops before that one apply again in one draft, that op goes through `resolveOp`,
 * and the next run starts after it. So the result is exactly op by op's.
 */
export function replayResolved(def: MachineDefinition, ops: readonly Op[]): MachineDefinition {
  let current = def;
  let start = 0;
  while (start < ops.length) {
    const run = ops.slice(start, start + REPLAY_RUN);
    try {
      current = applyRun(current, run);
      start += run.length;
      continue;
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
      // The op that threw, or an earlier place of the same object: all before it apply as written.
      const at = run.indexOf(err.op);
      if (at < 0) {
        for (const op of run) current = resolveOp(current, op).definition;
        start += run.length;
        continue;
      }
      if (at > 0) current = applyRun(current, run.slice(0, at));
      current = resolveOp(current, run[at]!).definition;
      start += at + 1;
    }
  }
  return current;
}

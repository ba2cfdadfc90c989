import { emptyState } from '../model/apply-state.ts';
import { applyOps } from '../model/apply.ts';
import type { Op } from '../model/op-types.ts';
import type { MachineDefinition, StateId, Transition } from '../model/types.ts';

/**
 * A deterministic statechart of about `size` states for tests and the benchmark:
 * compound states of up to `fanout` children nested a few levels, every fifth compound
 * parallel, each leaf with a transition to its next sibling and every seventh state with
 * one to a cousin. Built through ops, so it is a valid definition.
 */
export function generateChart(size: number, fanout = 5): MachineDefinition {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const root = 's_0';
  let def: MachineDefinition = {
    format: 1,
    machineId: 'generated',
    name: `generated ${size}`,
    context: null,
    root,
    states: {
      [root]: emptyState(root, null, '', 'compound'),
    },
    transitions: {},
  };
  const ops: Op[] = [];
  const children = new Map<StateId, StateId[]>([[root, []]]);
  const queue: StateId[] = [root];
  let count = 1;
  let compounds = 0;
  while (count < size && queue.length > 0) {
    const parent = queue.shift() as StateId;
    const n = Math.min(fanout, size - count);
    const parentIsParallel = compounds % 5 === 4;
    for (let i = 0; i < n; i++) {
      const id = `s_${count++}`;
      ops.push({
        type: 'state.add',
        id,
        parent,
        key: `${parentIsParallel ? 'region' : 'state'}${i}_${id.slice(2)}`,
        stateType: 'atomic',
        index: null,
      });
      children.get(parent)?.push(id);
      children.set(id, []);
      queue.push(id);
    }
    if (parent !== root || n > 0) {
      if (parent !== root)
        ops.push({ type: 'state.setType', id: parent, stateType: parentIsParallel ? 'parallel' : 'compound' });
      const first = children.get(parent)?.[0];
      if (!parentIsParallel && first) ops.push({ type: 'state.setInitial', id: parent, initial: first });
    }
    compounds++;
  }
  def = applyOps(def, ops);
  const ids = Object.keys(def.states).filter((id) => id !== root);
  const tOps: Op[] = [];
  let t = 0;
  const add = (source: StateId, target: StateId, event: string): void => {
    const transition: Transition = {
      id: `t_${t}`,
      source,
      event,
      guard: null,
      actions: t % 4 === 0 ? [{ type: `act${t % 9}` }] : [],
      targets: [target],
      reenter: false,
      description: null,
      meta: null,
      order: t,
    };
    t++;
    tOps.push({ type: 'transition.add', transition });
  };
  for (const list of children.values()) {
    const parentType = list[0] ? def.states[def.states[list[0]]?.parent ?? '']?.type : undefined;
    if (parentType === 'parallel') continue;
    for (let i = 0; i + 1 < list.length; i++) add(list[i] as StateId, list[i + 1] as StateId, `NEXT_${i}`);
  }
  for (let i = 0; i < ids.length; i += 7) add(ids[i] as StateId, ids[rand(ids.length)] as StateId, `JUMP_${i}`);
  return applyOps(def, tOps);
}

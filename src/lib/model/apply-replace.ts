import { integrityProblems } from './integrity.ts';
import { isStateNodeShape, isTransitionShape } from './op-shape.ts';
import { OpError, type Op } from './op-types.ts';
import type { MachineDefinition } from './types.ts';

type ReplaceOp = Extract<Op, { type: 'machine.replace' }>;

/**
 * `machine.replace`: the whole definition at once. How a machine inserted with content
 * (rather than created bare and filled by ops) enters the log: the database turns the
 * inserted definition into this op at seq 1, and every replay checks it here like any
 * op from the wire, so a malformed definition is a no-op, never a stored chart.
 */
export function applyReplace(op: ReplaceOp): MachineDefinition {
  const def = op.definition as unknown;
  const fail = (message: string): never => {
    throw new OpError('invalid', `the replacing definition ${message}`, op);
  };
  if (typeof def !== 'object' || def === null) return fail('is not an object');
  const d = def as Partial<MachineDefinition>;
  if (d.format !== 1) fail('is not format 1');
  if (typeof d.root !== 'string' || typeof d.name !== 'string' || typeof d.machineId !== 'string')
    fail('needs a root, a name and a machine id');
  if (d.context !== null && (typeof d.context !== 'object' || Array.isArray(d.context)))
    fail('has a context that is not an object');
  if (typeof d.states !== 'object' || d.states === null || typeof d.transitions !== 'object' || d.transitions === null)
    fail('needs states and transitions');
  for (const [id, state] of Object.entries(d.states as Record<string, unknown>)) {
    // The root has no key and no parent; the shape check is for the states under it.
    const root =
      id === d.root &&
      typeof state === 'object' &&
      state !== null &&
      (state as { key?: unknown }).key === '' &&
      (state as { parent?: unknown }).parent === null;
    const checked = root ? { ...state, key: 'root', parent: 'none' } : state;
    if (!isStateNodeShape(checked) || (checked as { id: unknown }).id !== id)
      fail(`has a malformed state ${JSON.stringify(id)}`);
  }
  for (const [id, transition] of Object.entries(d.transitions as Record<string, unknown>)) {
    if (!isTransitionShape(transition) || transition.id !== id)
      fail(`has a malformed transition ${JSON.stringify(id)}`);
  }
  const problems = integrityProblems(d as MachineDefinition);
  if (problems.length > 0) fail(`is not sound: ${problems.slice(0, 3).join('; ')}`);
  return structuredClone(d as MachineDefinition);
}

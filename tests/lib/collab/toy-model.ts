import type { OpModel } from '../../../src/lib/collab/types.ts';

/**
 * A small document with the failure modes that matter to rebasing: an add collides with
 * an existing id, a set or delete finds its id gone. It lets the protocol be tested in
 * isolation from the statechart model.
 */
export type ToyDoc = Readonly<Record<string, string>>;
export type ToyOp =
  { t: 'add'; id: string; v: string } | { t: 'set'; id: string; v: string } | { t: 'del'; id: string };

export const toyModel: OpModel<ToyDoc, ToyOp> = {
  apply(doc, op) {
    const has = Object.prototype.hasOwnProperty.call(doc, op.id);
    switch (op.t) {
      case 'add':
        if (has) throw new Error(`add: ${op.id} exists`);
        return { ...doc, [op.id]: op.v };
      case 'set':
        if (!has) throw new Error(`set: no ${op.id}`);
        return { ...doc, [op.id]: op.v };
      case 'del': {
        if (!has) throw new Error(`del: no ${op.id}`);
        const { [op.id]: _gone, ...rest } = doc;
        return rest;
      }
    }
  },
  invert(before, op) {
    return [toyInverse(before, op)];
  },
};

function toyInverse(before: ToyDoc, op: ToyOp): ToyOp {
  const old = before[op.id];
  switch (op.t) {
    case 'add':
      return { t: 'del', id: op.id };
    case 'set':
      if (old === undefined) throw new Error(`set: no ${op.id}`);
      return { t: 'set', id: op.id, v: old };
    case 'del':
      if (old === undefined) throw new Error(`del: no ${op.id}`);
      return { t: 'add', id: op.id, v: old };
  }
}

const IDS = ['a', 'b', 'c', 'd', 'e'];

/** An op from a few random numbers; ids come from a small pool so clients collide often. */
export function toyOp(_doc: ToyDoc, pick: number[]): ToyOp {
  const [kind = 0, id = 0, value = 0] = pick;
  const key = IDS[id % IDS.length] ?? 'a';
  const v = `v${value % 7}`;
  if (kind % 3 === 0) return { t: 'add', id: key, v };
  if (kind % 3 === 1) return { t: 'set', id: key, v };
  return { t: 'del', id: key };
}

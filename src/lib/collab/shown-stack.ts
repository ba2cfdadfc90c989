import { landAsWritten, resolveWith } from './rebase.ts';
import type { CommittedOp, DocState, OpModel } from './types.ts';

/**
 * Others' batches shown ahead of the log (doc.ts `seen`), worked out once per `remote`
 * list and kept beside it: what each prefix of the shown stack resolves to, whether each
 * batch landed whole, and how many of them a delivery confirms in the order shown.
 */

/**
 * `confirmed` + others' batches shown, by the `remote` list it was worked out for (each
 * change of the list is a new array): `docs[k]` is `confirmed` + the first k + 1 batches
 * (undefined when only the last was worked out), `whole[k]` whether every op of batch k
 * landed (none skipped). A batch seen costs its own ops, not a replay of every batch still
 * shown, and the log confirming the first of them in that order costs nothing (`confirmedAhead`).
 * Valid only while `confirmed` is the one it was for.
 */
export interface Shown {
  confirmed: unknown;
  docs: readonly unknown[];
  whole: readonly boolean[];
}
const shownOn = new WeakMap<readonly unknown[], Shown>();

/** What was worked out for this `remote` list, if anything. */
export const shownFor = (remote: readonly unknown[]): Shown | undefined => shownOn.get(remote);

/** Keeps what was worked out for a `remote` list (a new array each time the list changes). */
export function rememberShown(remote: readonly unknown[], shown: Shown): void {
  shownOn.set(remote, shown);
}

export function shownOf<D, O>(model: OpModel<D, O>, state: DocState<D, O>): Shown {
  const remote = state.remote ?? [];
  if (remote.length === 0) return { confirmed: state.confirmed, docs: [], whole: [] };
  const known = shownOn.get(remote);
  if (known && known.confirmed === state.confirmed) return known;
  const doc = resolveAll(
    model,
    state.confirmed,
    remote.flatMap((b) => b.ops),
  );
  const shown: Shown = {
    confirmed: state.confirmed,
    docs: remote.map((_, i) => (i === remote.length - 1 ? doc : undefined)),
    whole: remote.map(() => false),
  };
  shownOn.set(remote, shown);
  return shown;
}

export function shownBase<D, O>(model: OpModel<D, O>, state: DocState<D, O>): D {
  const { docs } = shownOf(model, state);
  return (docs[docs.length - 1] ?? state.confirmed) as D;
}

/** `ops` resolved one after another onto `doc` (in one step when all apply as written), and whether none was skipped. */
export function resolveWhole<D, O>(model: OpModel<D, O>, doc: D, ops: readonly O[]): { doc: D; whole: boolean } {
  const all = landAsWritten(model, doc, ops);
  if (all) return { doc: all, whole: true };
  let current = doc;
  let whole = true;
  for (const op of ops) {
    const landed = resolveWith(model, current, op);
    current = landed.doc;
    whole &&= landed.applied.length > 0;
  }
  return { doc: current, whole };
}

/** `ops` resolved one after another onto `doc` (in one step when all apply as written). */
export function resolveAll<D, O>(model: OpModel<D, O>, doc: D, ops: readonly O[]): D {
  return resolveWhole(model, doc, ops).doc;
}

/**
 * How many of the first whole batches in `state.remote` the log ops a delivery applies
 * (past `state.version`, up to a gap) are, in order, exactly; 0 when they are not that.
 */
export function confirmsShown<D, O>(state: DocState<D, O>, sorted: readonly CommittedOp<O>[]): number {
  const remote = state.remote ?? [];
  let version = state.version;
  let batch = 0;
  let index = 0;
  for (const entry of sorted) {
    if (entry.seq <= version) continue;
    if (entry.seq > version + 1) break;
    version = entry.seq;
    const shown = remote[batch];
    if (!shown || entry.batchId !== shown.batchId || index >= shown.ops.length) return 0;
    index++;
    if (index === shown.ops.length) {
      batch++;
      index = 0;
    }
  }
  return index === 0 ? batch : 0;
}

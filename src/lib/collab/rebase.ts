import type { OpModel } from './types.ts';

/**
 * Applies `ops` in order to `doc`, keeping the ones that apply and dropping the rest.
 * This is all rebasing needs: ops name states by stable id, so an op replayed on a newer
 * document keeps its meaning or no longer applies (its state was deleted, its key was
 * taken), and is then dropped and reported (src/lib/model/CONTEXT.md).
 */
export function applyEach<D, O>(model: OpModel<D, O>, doc: D, ops: readonly O[]): { doc: D; kept: O[]; dropped: O[] } {
  // Usually every op still applies (undoing a big paste): then in one step where the model can.
  const whole = landAsWritten(model, doc, ops);
  if (whole !== null) return { doc: whole, kept: [...ops], dropped: [] };
  const kept: O[] = [];
  const dropped: O[] = [];
  let current = doc;
  for (const op of ops) {
    try {
      current = model.apply(current, op);
      kept.push(op);
    } catch {
      dropped.push(op);
    }
  }
  return { doc: current, kept, dropped };
}

/** Applies all of `ops` or none: an edit is one intent, so it lands whole or not at all. */
export function applyAll<D, O>(
  model: OpModel<D, O>,
  doc: D,
  ops: readonly O[],
): { ok: true; doc: D } | { ok: false; error: unknown; op: O } {
  if (model.applyAll) {
    try {
      return { ok: true, doc: model.applyAll(doc, ops) };
    } catch {
      // One op does not apply: find which, one by one.
    }
  }
  let current = doc;
  for (const op of ops) {
    try {
      current = model.apply(current, op);
    } catch (error) {
      return { ok: false, error, op };
    }
  }
  return { ok: true, doc: current };
}

/** The inverse of a sequence: each op's inverse ops, last op's first. */
export function invertAll<D, O>(model: OpModel<D, O>, before: D, ops: readonly O[]): O[] {
  if (model.invertAll) return model.invertAll(before, ops);
  const inverses: O[][] = [];
  let current = before;
  for (const op of ops) {
    inverses.push(model.invert(current, op));
    current = model.apply(current, op);
  }
  return inverses.reverse().flat();
}

/**
 * A run of ops landing on `doc` when every one of them applies as written (then resolving
 * each changes nothing), in one step where the model can (`applyAll`); null otherwise,
 * and the caller resolves them one by one.
 */
export function landAsWritten<D, O>(model: OpModel<D, O>, doc: D, ops: readonly O[]): D | null {
  if (!model.applyAll || ops.length < 2) return null;
  try {
    return model.applyAll(doc, ops);
  } catch {
    return null;
  }
}

/** One logged op landing on `doc` as the model resolves it (a throwing op is a no-op). */
export function resolveWith<D, O>(model: OpModel<D, O>, doc: D, op: O): { doc: D; applied: O[]; error: unknown } {
  if (model.resolve) return model.resolve(doc, op);
  try {
    return { doc: model.apply(doc, op), applied: [op], error: null };
  } catch (error) {
    return { doc, applied: [], error };
  }
}

/** Words for a person whose op did not apply. */
export function explainWith<D, O>(model: OpModel<D, O>, op: O, error: unknown): string {
  if (model.explain) return model.explain(op, error);
  return error instanceof Error ? error.message : 'it no longer applies';
}

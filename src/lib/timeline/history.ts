import { emptyState } from '../model/apply-state.ts';
import type { MachineDefinition } from '../model/types.ts';
import { batchesOf, foldOps, summarizeOps } from './summary.ts';
import type { AuthoredOp, EditEntry } from './types.ts';

/**
 * A machine's edit history, folded from its op log (seq 1 on, from the bare root every
 * machine starts as): one entry per batch, summarised in words, and the definition at
 * any version for time travel. Definitions are kept at every CHECKPOINT_EVERY-th batch
 * (they share unchanged parts, so this is cheap); a version between two is folded from
 * the one before. The log only grows: `append` takes ops after the last one folded.
 */

/** The definition every machine's log starts from (the server's `bare_machine_definition()`). */
export const BARE_DEFINITION: MachineDefinition = {
  format: 1,
  machineId: 'untitled',
  name: 'untitled',
  context: null,
  root: 's_root',
  states: { s_root: emptyState('s_root', null, '', 'compound') },
  transitions: {},
};

const CHECKPOINT_EVERY = 32;

export interface History {
  /** The last seq folded (the version the head definition is at). */
  version: number;
  head: MachineDefinition;
  entries: EditEntry[];
  /** Definitions after some batches, by version, ascending. */
  checkpoints: { version: number; definition: MachineDefinition }[];
  /** Every op folded, in seq order (for folding to a version between checkpoints). */
  ops: AuthoredOp[];
}

export const emptyHistory = (): History => ({
  version: 0,
  head: BARE_DEFINITION,
  entries: [],
  checkpoints: [{ version: 0, definition: BARE_DEFINITION }],
  ops: [],
});

/**
 * The history with `ops` folded in. Ops at or before `version` are dropped (repeats);
 * a gap (the first new op is not version + 1) returns null: read the log again from
 * `version`.
 */
export function appendOps(history: History, ops: readonly AuthoredOp[]): History | null {
  const fresh = ops.filter((o) => o.seq > history.version).sort((a, b) => a.seq - b.seq);
  if (fresh.length === 0) return history;
  for (let i = 0; i < fresh.length; i++) if (fresh[i]!.seq !== history.version + 1 + i) return null;
  let head = history.head;
  // A batch whose start was folded before continues into the new ops: its entry grows.
  const entries = history.entries.slice();
  const checkpoints = history.checkpoints.slice();
  const batches = batchesOf(fresh);
  for (const batch of batches) {
    const first = batch[0]!;
    const last = batch[batch.length - 1]!;
    const before = head;
    head = foldOps(
      head,
      batch.map((o) => o.op),
    );
    const prev = entries[entries.length - 1];
    const continues = prev !== undefined && prev.batchId === first.batchId && prev.lastSeq + 1 === first.seq;
    if (continues) {
      const start = history.ops.length - (prev.lastSeq - prev.firstSeq + 1);
      const all = [...history.ops.slice(start), ...batch];
      const base = definitionAtIn(history, prev.firstSeq - 1);
      const { text, changed } = summarizeOps(
        base,
        all.map((o) => o.op),
        head,
      );
      entries[entries.length - 1] = { ...prev, lastSeq: last.seq, text, changed };
    } else {
      const { text, changed } = summarizeOps(
        before,
        batch.map((o) => o.op),
        head,
      );
      entries.push({
        key: `edit:${first.seq}`,
        kind: 'edit',
        at: first.at,
        time: Date.parse(first.at) || 0,
        person: first.author,
        text,
        batchId: first.batchId,
        firstSeq: first.seq,
        lastSeq: last.seq,
        changed,
      });
    }
    if (entries.length % CHECKPOINT_EVERY === 0) checkpoints.push({ version: last.seq, definition: head });
  }
  return {
    version: fresh[fresh.length - 1]!.seq,
    head,
    entries,
    checkpoints,
    ops: history.ops.concat(fresh),
  };
}

function definitionAtIn(history: History, version: number): MachineDefinition {
  if (version >= history.version) return history.head;
  let base = history.checkpoints[0]!;
  for (const c of history.checkpoints) if (c.version <= version) base = c;
  // ops[i] has seq i + 1 (the log is folded from seq 1 without gaps).
  return foldOps(
    base.definition,
    history.ops.slice(base.version, version).map((o) => o.op),
  );
}

/** The definition as it was at `version` (after op `version`), for time travel. */
export function definitionAt(history: History, version: number): MachineDefinition {
  return definitionAtIn(history, Math.max(0, version));
}

/**
 * The definition after op `seq` of a log read from its start (a named version's), folded
 * as the timeline folds it; null when the ops do not reach `seq` or have a gap.
 */
export function definitionAtSeq(ops: readonly AuthoredOp[], seq: number): MachineDefinition | null {
  const history = appendOps(emptyHistory(), ops);
  return history && seq <= history.version ? definitionAt(history, seq) : null;
}

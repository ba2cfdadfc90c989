import type { QueueSnapshot } from '../lib/collab/types.ts';
import type { Op } from '../lib/model/op-types.ts';
import type { MachineDefinition } from '../lib/model/types.ts';
import type { QueueStore } from '../lib/ports/document.ts';

/**
 * The document's unsent edits in Web Storage (localStorage in the browser), one key per
 * machine, so edits typed offline survive a reload. A full or unavailable storage loses
 * only the copy: the edits stay queued in memory and are sent when the server is back.
 */

type Snapshot = QueueSnapshot<MachineDefinition, Op>;

const keyFor = (machineId: string) => `chartroom:queue:${machineId}`;

function isSnapshot(value: unknown): value is Snapshot {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.version === 'number' &&
    Array.isArray(v.pending) &&
    typeof v.confirmed === 'object' &&
    v.confirmed !== null &&
    (v.inflight === null || typeof v.inflight === 'object')
  );
}

/** The same unsent ops (the same batch on the wire, the same pending ops), or both empty. */
function sameQueue(a: Snapshot | null, b: Snapshot | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.inflight === b.inflight &&
    a.pending.length === b.pending.length &&
    a.pending.every((op, i) => op === b.pending[i])
  );
}

/**
 * Writes are coalesced to one per machine per task, made after the task that asked: an edit
 * saves the queue twice (made, then taken into a batch) before its commit leaves, and each
 * write serialises the whole confirmed definition (milliseconds on a large chart). Deferred,
 * the commit request goes first and the two writes become one. A load writes what is waiting
 * first, so a reload in the same page reads the newest queue.
 * A save whose queue is the one last saved is not written: the document saves after every
 * remote delivery, and others' edits arriving while ours wait move only `confirmed`. The
 * stored copy then keeps an older `confirmed` with the same ops, which restores to the same
 * document: the ops applied on it when they were saved (every change of the queue is
 * written with the `confirmed` of its time), and the log read after a reload brings the rest.
 */
export function createQueueStore(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>): QueueStore {
  const waiting = new Map<string, Snapshot | null>();
  // The queue last saved per machine (written or waiting): what a new save is compared with.
  const saved = new Map<string, Snapshot | null>();
  let scheduled = false;

  const write = (machineId: string, snapshot: Snapshot | null) => {
    try {
      if (snapshot === null) storage.removeItem(keyFor(machineId));
      else storage.setItem(keyFor(machineId), JSON.stringify(snapshot));
    } catch {
      // Quota or privacy mode: the queue lives on in memory.
    }
  };
  const flush = () => {
    scheduled = false;
    const writes = [...waiting];
    waiting.clear();
    for (const [machineId, snapshot] of writes) write(machineId, snapshot);
  };

  return {
    load(machineId) {
      if (waiting.has(machineId)) {
        write(machineId, waiting.get(machineId) ?? null);
        waiting.delete(machineId);
      }
      try {
        const raw = storage.getItem(keyFor(machineId));
        const parsed: unknown = raw === null ? null : JSON.parse(raw);
        return Promise.resolve(isSnapshot(parsed) ? parsed : null);
      } catch {
        return Promise.resolve(null);
      }
    },
    save(machineId, snapshot) {
      if (saved.has(machineId) && sameQueue(saved.get(machineId) ?? null, snapshot)) return;
      saved.set(machineId, snapshot);
      waiting.set(machineId, snapshot);
      if (scheduled) return;
      scheduled = true;
      setTimeout(flush, 0);
    },
  };
}

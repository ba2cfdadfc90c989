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

export function createQueueStore(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>): QueueStore {
  return {
    load(machineId) {
      try {
        const raw = storage.getItem(keyFor(machineId));
        const parsed: unknown = raw === null ? null : JSON.parse(raw);
        return Promise.resolve(isSnapshot(parsed) ? parsed : null);
      } catch {
        return Promise.resolve(null);
      }
    },
    save(machineId, snapshot) {
      try {
        if (snapshot === null) storage.removeItem(keyFor(machineId));
        else storage.setItem(keyFor(machineId), JSON.stringify(snapshot));
      } catch {
        // Quota or privacy mode: the queue lives on in memory.
      }
    },
  };
}

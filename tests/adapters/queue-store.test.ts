import { describe, expect, it, vi } from 'vitest';
import { createQueueStore } from '../../src/adapters/queue-store.ts';
import type { QueueSnapshot } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { rename } from '../machines/document.fakes.ts';

/**
 * The unsent-edit copy in Web Storage: writes are made after the task that asked, one per
 * machine however many saves came in it, and a load reads the newest save even before then.
 */

function countingStorage() {
  const items = new Map<string, string>();
  const writes: string[] = [];
  return {
    items,
    writes,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => {
      writes.push(key);
      items.set(key, value);
    },
    removeItem: (key: string) => {
      writes.push(`-${key}`);
      items.delete(key);
    },
  };
}

const snapshot = (name: string, version: number) =>
  ({
    version,
    confirmed: { id: 'm', name, initial: null, states: {}, transitions: {} },
    inflight: null,
    pending: [{ id: `b${version}`, ops: [] }],
  }) as unknown as QueueSnapshot<MachineDefinition, Op>;

describe('queue store', () => {
  it('writes after the asking task, once per machine, the newest snapshot', async () => {
    const storage = countingStorage();
    const store = createQueueStore(storage);
    store.save('a', snapshot('first', 1));
    store.save('a', snapshot('second', 2));
    store.save('b', snapshot('other', 1));
    expect(storage.writes).toEqual([]);
    await vi.waitFor(() => expect(storage.writes).toHaveLength(2));
    expect(storage.writes.sort()).toEqual(['chartroom:queue:a', 'chartroom:queue:b']);
    expect(JSON.parse(storage.items.get('chartroom:queue:a') ?? 'null')).toMatchObject({ version: 2 });
  });

  it('a load right after a save reads that save, and a cleared queue is removed', async () => {
    const storage = countingStorage();
    const store = createQueueStore(storage);
    store.save('a', snapshot('kept', 3));
    await expect(store.load('a')).resolves.toMatchObject({ version: 3 });
    store.save('a', null);
    await expect(store.load('a')).resolves.toBeNull();
    expect(storage.items.size).toBe(0);
  });

  it('writes nothing when a save has the queue last saved (only confirmed moved), and writes a changed queue', async () => {
    const storage = countingStorage();
    const store = createQueueStore(storage);
    const first = snapshot('mine', 1);
    store.save('a', first);
    await vi.waitFor(() => expect(storage.writes).toHaveLength(1));
    // Others' edits confirmed while ours wait: the same ops over a newer confirmed.
    store.save('a', { ...first, version: 5, confirmed: snapshot('theirs', 5).confirmed });
    store.save('a', null);
    store.save('a', null);
    await vi.waitFor(() => expect(storage.writes).toHaveLength(2));
    expect(storage.writes).toEqual(['chartroom:queue:a', '-chartroom:queue:a']);
    store.save('a', null);
    const next = { ...first, pending: [...first.pending, rename('more')] };
    store.save('a', next);
    await vi.waitFor(() => expect(storage.writes).toHaveLength(3));
    await expect(store.load('a')).resolves.toMatchObject({ version: 1, pending: next.pending });
  });

  it('a storage that refuses writes loses only the copy', async () => {
    const storage = countingStorage();
    storage.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    const store = createQueueStore(storage);
    store.save('a', snapshot('lost', 1));
    await expect(store.load('a')).resolves.toBeNull();
  });
});

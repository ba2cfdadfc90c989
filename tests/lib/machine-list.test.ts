import { describe, expect, it } from 'vitest';
import { upsertMachine } from '../../src/lib/machine-list.ts';
import type { MachineSummary } from '../../src/lib/ports/document.ts';

const row = (over: Partial<MachineSummary> = {}): MachineSummary => ({
  id: 'm1',
  projectId: 'p',
  name: 'Door',
  version: 3,
  createdBy: null,
  createdAt: '2026-11-27T10:00:00Z',
  updatedAt: '2026-11-27T10:00:00Z',
  ...over,
});

describe('the machine list, merged', () => {
  it('keeps who last changed a machine when a live row (which does not carry it) replaces it', () => {
    const lastChange = { by: 'u-ada', at: '2026-11-27T10:05:00Z' };
    const read = [row({ lastChange, sketch: null })];
    const live = upsertMachine(read, row({ name: 'Front door' }));
    expect(live).toEqual([row({ name: 'Front door', lastChange, sketch: null })]);
    // A row that does say (a fresh read) wins.
    const fresh = { by: 'u-bo', at: '2026-11-27T10:06:00Z' };
    expect(upsertMachine(live, row({ version: 4, lastChange: fresh }))[0]?.lastChange).toEqual(fresh);
  });

  it('never lets an older row replace a newer one', () => {
    const list = [row({ version: 5 })];
    expect(upsertMachine(list, row({ version: 4, name: 'old' }))).toBe(list);
  });
});

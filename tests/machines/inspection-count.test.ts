import { describe, expect, it } from 'vitest';
import { countLive } from '../../machines/inspection/inspection.machine.ts';
import type { InspectionSession } from '../../src/lib/ports/inspection.ts';
import { stored } from './inspection-session.fakes.ts';

const known: InspectionSession = {
  id: 'ses-1',
  sourceId: 'src-1',
  startedAt: '2026-11-27T10:00:00.000Z',
  lastEventAt: '2026-11-27T10:00:00.000Z',
  endedAt: null,
  eventCount: 2,
};

describe('the inspection page’s session list under live events', () => {
  it('counts a batch into the session it belongs to, or takes the database’s count when given', () => {
    expect(countLive([known], [stored(3), stored(4)])[0]!.eventCount).toBe(4);
    expect(countLive([known], [stored(3)], { sessionId: 'ses-1', eventCount: 9 })[0]!.eventCount).toBe(9);
  });

  it('adds a session it never heard open, from its events, so the list is never empty while events flow', () => {
    const events = [stored(1, 'ses-2'), stored(2, 'ses-2'), stored(5)];
    const list = countLive([known], events);
    expect(list.map((s) => s.id)).toEqual(['ses-2', 'ses-1']);
    expect(list[0]).toMatchObject({ id: 'ses-2', eventCount: 2, endedAt: null });
    expect(countLive([], [stored(1, 'ses-3')], { sessionId: 'ses-3', eventCount: 7 })[0]!.eventCount).toBe(7);
  });
});

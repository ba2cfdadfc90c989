import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PALETTE } from '../../src/lib/ports/profile.ts';
import { distinctColors } from '../../src/lib/room-colors.ts';

/** People in one room could get the same colour (hashed into ten). */
const hexes = PALETTE.map((p) => p.hex);
const [red, orange, amber] = hexes as [string, string, string];

describe('colours in a room', () => {
  it('keeps own colours when they differ, and moves the later joiner off a taken one', () => {
    const colors = distinctColors(
      [
        { id: 'b', color: red, joinedAt: '2026-01-02T00:00:00Z' },
        { id: 'a', color: red, joinedAt: '2026-01-01T00:00:00Z' },
        { id: 'c', color: amber, joinedAt: '2026-01-03T00:00:00Z' },
      ],
      hexes,
    );
    expect(colors.get('a')).toBe(red);
    expect(colors.get('b')).toBe(orange);
    expect(colors.get('c')).toBe(amber);
  });

  it('gives everyone a different colour, past the palette too, and joining changes no one already there', () => {
    const person = fc.record({
      id: fc.uuid(),
      color: fc.constantFrom(...hexes),
      joinedAt: fc.integer({ min: 0, max: 1e6 }).map((n) => new Date(n * 1000).toISOString()),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(person, { minLength: 1, maxLength: 25, selector: (p) => p.id }),
        person,
        (room, newcomer) => {
          fc.pre(!room.some((p) => p.id === newcomer.id));
          const before = distinctColors(room, hexes);
          expect(new Set(before.values()).size).toBe(room.length);
          const latest = room.reduce((max, p) => (p.joinedAt > max ? p.joinedAt : max), '');
          const after = distinctColors([...room, { ...newcomer, joinedAt: latest + 'Z' }], hexes);
          expect(new Set(after.values()).size).toBe(room.length + 1);
          for (const p of room) expect(after.get(p.id)).toBe(before.get(p.id));
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { broadcastFact } from '../../src/adapters/supabase/canvas-presence.ts';

/**
 * Cursor and view broadcasts come from other people's browsers: whatever they send, only
 * a well-formed payload becomes a fact; anything else is dropped (null), never thrown.
 */

describe('canvas broadcast payloads', () => {
  it('turns a cursor payload into a cursor fact', () => {
    expect(broadcastFact('cursor', { userId: 'u-bob', x: 12.5, y: -3 })).toEqual({
      type: 'cursor.moved',
      userId: 'u-bob',
      at: { x: 12.5, y: -3 },
    });
    expect(broadcastFact('cursor', { userId: 'u-bob', x: 0, y: 0 })).toEqual({
      type: 'cursor.moved',
      userId: 'u-bob',
      at: { x: 0, y: 0 },
    });
    // The pointer left the diagram.
    expect(broadcastFact('cursor', { userId: 'u-bob', x: null })).toEqual({
      type: 'cursor.moved',
      userId: 'u-bob',
      at: null,
    });
  });

  it("marks an agent's cursor only when the payload says agent: true", () => {
    expect(broadcastFact('cursor', { userId: 'u-bob', agent: true, x: 1, y: 2 })).toEqual({
      type: 'cursor.moved',
      userId: 'u-bob',
      agent: true,
      at: { x: 1, y: 2 },
    });
    expect(broadcastFact('cursor', { userId: 'u-bob', agent: 'yes', x: 1, y: 2 })).toEqual({
      type: 'cursor.moved',
      userId: 'u-bob',
      at: { x: 1, y: 2 },
    });
  });

  it('turns a view payload into a view fact', () => {
    expect(broadcastFact('view', { userId: 'u-bob', x: 100, y: -40, zoom: 0.25 })).toEqual({
      type: 'view.moved',
      userId: 'u-bob',
      view: { x: 100, y: -40, zoom: 0.25 },
    });
  });

  it('keeps only the fields it knows', () => {
    expect(broadcastFact('cursor', { userId: 'u-bob', x: 1, y: 2, color: 'red' })).toEqual({
      type: 'cursor.moved',
      userId: 'u-bob',
      at: { x: 1, y: 2 },
    });
    expect(broadcastFact('view', { userId: 'u-bob', x: 1, y: 2, zoom: 3, extra: { deep: true } })).toEqual({
      type: 'view.moved',
      userId: 'u-bob',
      view: { x: 1, y: 2, zoom: 3 },
    });
  });

  it('drops a payload without a user id', () => {
    for (const userId of [undefined, '', null, 42, ['u-bob'], { id: 'u-bob' }]) {
      expect(broadcastFact('cursor', { userId, x: 1, y: 2 })).toBeNull();
      expect(broadcastFact('view', { userId, x: 1, y: 2, zoom: 1 })).toBeNull();
    }
    expect(broadcastFact('cursor', { x: 1, y: 2 })).toBeNull();
  });

  it('drops coordinates that are not finite numbers', () => {
    const bad: unknown[] = [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      '12',
      undefined,
      true,
      {},
      [1],
    ];
    for (const value of bad) {
      expect(broadcastFact('cursor', { userId: 'u-bob', x: value, y: 2 })).toBeNull();
      expect(broadcastFact('cursor', { userId: 'u-bob', x: 1, y: value })).toBeNull();
      expect(broadcastFact('view', { userId: 'u-bob', x: value, y: 2, zoom: 1 })).toBeNull();
      expect(broadcastFact('view', { userId: 'u-bob', x: 1, y: value, zoom: 1 })).toBeNull();
      expect(broadcastFact('view', { userId: 'u-bob', x: 1, y: 2, zoom: value })).toBeNull();
    }
    // Only x null means "left the diagram"; a null y with a number x is broken.
    expect(broadcastFact('cursor', { userId: 'u-bob', x: 1, y: null })).toBeNull();
    // A view has no "away": null is not a view.
    expect(broadcastFact('view', { userId: 'u-bob', x: null, y: null, zoom: null })).toBeNull();
  });

  it('drops a zoom of zero or below', () => {
    for (const zoom of [0, -0, -1, -0.001])
      expect(broadcastFact('view', { userId: 'u-bob', x: 1, y: 2, zoom })).toBeNull();
    expect(broadcastFact('view', { userId: 'u-bob', x: 1, y: 2, zoom: Number.MIN_VALUE })).not.toBeNull();
  });

  it('drops events it does not know', () => {
    for (const event of ['selection', 'Cursor', 'views', '', 'presence', 'postgres_changes']) {
      expect(broadcastFact(event, { userId: 'u-bob', x: 1, y: 2, zoom: 1 })).toBeNull();
    }
  });
});

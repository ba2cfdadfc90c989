import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedRange } from '../../../src/features/canvas/changed-range.ts';

/** The code view replaces only what a new definition's text changed (a peer's big paste). */
describe('changedRange', () => {
  const applied = (before: string, after: string) => {
    const c = changedRange(before, after);
    return c ? before.slice(0, c.from) + c.insert + before.slice(c.to) : before;
  };

  it('is null for the same text, and a middle range for a change inside', () => {
    expect(changedRange('abc', 'abc')).toBeNull();
    expect(changedRange('{"a": 1, "b": 2}', '{"a": 1, "c": 3, "b": 2}')).toEqual({
      from: 10,
      to: 10,
      insert: 'c": 3, "',
    });
  });

  it('always turns the old text into the new one, replacing no more than it must', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (head, a, b, tail) => {
        const before = head + a + tail;
        const after = head + b + tail;
        expect(applied(before, after)).toBe(after);
        const c = changedRange(before, after);
        if (c) expect(c.insert.length).toBeLessThanOrEqual(b.length);
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { usesText } from '../../src/features/room/uses-text.ts';

/** An invite link's use count in words, never "used 1 times". */
describe('usesText', () => {
  it('counts uses in words', () => {
    expect(usesText(0, null)).toBe('not used yet');
    expect(usesText(1, null)).toBe('used once');
    expect(usesText(3, null)).toBe('used 3 times');
    expect(usesText(1, 5)).toBe('used 1 of 5 times');
    expect(usesText(0, 5)).toBe('used 0 of 5 times');
  });
});

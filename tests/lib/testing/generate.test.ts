import { describe, expect, it } from 'vitest';
import { generatePaths } from '../../../src/lib/testing/index.ts';
import { clique, def, payment } from './charts.ts';

/** What the Tests panel's worker answers: paths of the asked kind, or a refusal in words. */
describe('generatePaths', () => {
  it('gives shortest paths to every state by default', () => {
    const { paths, error } = generatePaths(def(payment), 'shortest', null);
    expect(error).toBeNull();
    expect(paths.every((p) => p.kind === 'shortest')).toBe(true);
    expect(paths.length).toBeGreaterThan(1);
  });

  it('asks for a target before simple paths, and says when none reaches it', () => {
    expect(generatePaths(def(payment), 'simple', null)).toEqual({
      paths: [],
      error: 'Choose a target state for simple paths.',
    });
    expect(generatePaths(def(payment), 'simple', 'nowhere').error).toBe('No path reaches nowhere.');
  });

  it('turns the path limit into the message, never a throw', () => {
    const { paths, error } = generatePaths(def(clique), 'simple', 's4', { maxPaths: 5 });
    expect(paths).toEqual([]);
    expect(error).toBe('more than 5 paths; choose a target state or a depth');
  });
});

import { describe, expect, it } from 'vitest';
import { parseRoute, routePath, type Route } from '../../src/lib/route.ts';

describe('routes', () => {
  it('parses each page and writes it back', () => {
    const cases: [string, Route][] = [
      ['/', { name: 'home' }],
      ['/profile', { name: 'profile' }],
      ['/p/4f1c2a', { name: 'project', projectId: '4f1c2a' }],
      ['/invite/abc123', { name: 'invite', token: 'abc123' }],
      ['/s/deadbeef', { name: 'share', token: 'deadbeef' }],
    ];
    for (const [path, route] of cases) {
      expect(parseRoute(path)).toEqual(route);
      expect(routePath(route)).toBe(path);
    }
    expect(parseRoute('/p/4f1c2a/')).toEqual({ name: 'project', projectId: '4f1c2a' });
  });

  it('sends anything else to not found', () => {
    for (const path of ['/p', '/p/a/b', '/s/<script>', '/nope', '/profile/x']) expect(parseRoute(path).name).toBe('notFound');
  });
});

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
      ['/p/4f1c2a/m/9e8d-7c_6b', { name: 'machine', projectId: '4f1c2a', machineId: '9e8d-7c_6b' }],
    ];
    for (const [path, route] of cases) {
      expect(parseRoute(path)).toEqual(route);
      expect(routePath(route)).toBe(path);
    }
    expect(parseRoute('/p/4f1c2a/')).toEqual({ name: 'project', projectId: '4f1c2a' });
    // Empty segments are not parts: a trailing or doubled slash is the same page.
    expect(parseRoute('/p/4f1c2a/m/77/')).toEqual({ name: 'machine', projectId: '4f1c2a', machineId: '77' });
    expect(parseRoute('//p//4f1c2a//m//77')).toEqual({ name: 'machine', projectId: '4f1c2a', machineId: '77' });
  });

  it('takes ids such as the database gives them', () => {
    const uuid = '0b9f6c1e-3f5a-4d2b-9c8e-7a6b5c4d3e2f';
    expect(parseRoute(`/p/${uuid}/m/${uuid}`)).toEqual({ name: 'machine', projectId: uuid, machineId: uuid });
    const longest = 'x'.repeat(128);
    expect(parseRoute(`/p/${longest}/m/${longest}`)).toEqual({
      name: 'machine',
      projectId: longest,
      machineId: longest,
    });
  });

  it('sends a machine path with a bad segment or extra parts to not found', () => {
    const paths = [
      '/p/4f1c2a/m',
      '/p/4f1c2a/m/',
      '/p/4f1c2a/x/77',
      '/p/4f1c2a/M/77',
      '/q/4f1c2a/m/77',
      '/p/4f1c2a/m/77/edit',
      '/p/4f1c2a/m/77/m/78',
      '/p/bad%20id/m/77',
      '/p/4f1c2a/m/77.json',
      '/p/4f1c2a/m/<script>',
      '/p/4f1c2a/m/..',
      `/p/4f1c2a/m/${'x'.repeat(129)}`,
      `/p/${'x'.repeat(129)}/m/77`,
      '/invite/abc/m/77',
      '/s/abc/m/77',
    ];
    for (const path of paths) {
      expect(parseRoute(path), path).toEqual({ name: 'notFound', path });
      // Not found keeps the address as typed, so the page can show it.
      expect(routePath(parseRoute(path))).toBe(path);
    }
  });

  it('sends anything else to not found', () => {
    for (const path of ['/p', '/p/a/b', '/s/<script>', '/nope', '/profile/x'])
      expect(parseRoute(path).name).toBe('notFound');
  });
});

/**
 * The app's routes as data: a path in, a route out, and back. Pure, so the parsing rules
 * are tested without a browser; src/features/navigation/router.ts binds them to the History API.
 */

export type Route =
  | { name: 'home' }
  | { name: 'project'; projectId: string }
  | { name: 'machine'; projectId: string; machineId: string }
  | { name: 'inspect'; projectId: string }
  | { name: 'invite'; token: string }
  | { name: 'share'; token: string }
  | { name: 'profile' }
  | { name: 'notFound'; path: string };

const SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter((part) => part !== '');
  const [first, second, extra, fourth] = parts;
  if (parts.length === 0) return { name: 'home' };
  if (
    first === 'p' &&
    parts.length === 4 &&
    extra === 'm' &&
    second !== undefined &&
    fourth !== undefined &&
    SEGMENT.test(second) &&
    SEGMENT.test(fourth)
  ) {
    return { name: 'machine', projectId: second, machineId: fourth };
  }
  if (first === 'p' && parts.length === 3 && extra === 'inspect' && second !== undefined && SEGMENT.test(second))
    return { name: 'inspect', projectId: second };
  if (first === 'profile' && parts.length === 1) return { name: 'profile' };
  if (second !== undefined && extra === undefined && SEGMENT.test(second)) {
    if (first === 'p') return { name: 'project', projectId: second };
    if (first === 'invite') return { name: 'invite', token: second };
    if (first === 's') return { name: 'share', token: second };
  }
  return { name: 'notFound', path: pathname };
}

export function routePath(route: Route): string {
  switch (route.name) {
    case 'home':
      return '/';
    case 'project':
      return `/p/${route.projectId}`;
    case 'machine':
      return `/p/${route.projectId}/m/${route.machineId}`;
    case 'inspect':
      return `/p/${route.projectId}/inspect`;
    case 'invite':
      return `/invite/${route.token}`;
    case 'share':
      return `/s/${route.token}`;
    case 'profile':
      return '/profile';
    case 'notFound':
      return route.path;
  }
}

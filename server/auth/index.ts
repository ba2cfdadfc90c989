import { sendJson } from '../gateway/http.ts';
import type { BackendDeps, BackendService } from '../service.ts';

/** Placeholder until the auth service lands: answers 404 for every route. */
export function createAuthService(_deps: BackendDeps): BackendService {
  return {
    prefix: '/auth/v1',
    handle(_req, res) {
      sendJson(res, 404, { message: 'not found' });
      return Promise.resolve();
    },
  };
}

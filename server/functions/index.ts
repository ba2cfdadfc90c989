import { sendJson } from '../gateway/http.ts';
import type { BackendDeps, BackendService } from '../service.ts';

/** Placeholder until the functions service lands: answers 404 for every route. */
export function createFunctionsService(_deps: BackendDeps): BackendService {
  return {
    prefix: '/functions/v1',
    handle(_req, res) {
      sendJson(res, 404, { message: 'not found' });
      return Promise.resolve();
    },
  };
}

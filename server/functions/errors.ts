import type { ServerResponse } from 'node:http';
import { sendJson } from '../gateway/http.ts';

/**
 * The functions relay's answers, in the shapes hosted Supabase sends: the relay's
 * `{code, message}` with a numeric code for JWT failures, and the runtime's named codes
 * (supabase/cli's serve template mirrors production: BOOT_ERROR 503, WORKER_ERROR 500).
 */
export const relayError = {
  notFound: (res: ServerResponse) =>
    sendJson(res, 404, { code: 'NOT_FOUND', message: 'Requested function was not found' }),
  missingAuthorization: (res: ServerResponse) =>
    sendJson(res, 401, { code: 401, message: 'Missing authorization header' }),
  invalidJwt: (res: ServerResponse) => sendJson(res, 401, { code: 401, message: 'Invalid JWT' }),
  bootError: (res: ServerResponse) =>
    sendJson(res, 503, { code: 'BOOT_ERROR', message: 'Worker failed to boot (please check logs)' }),
  workerError: (res: ServerResponse) =>
    sendJson(res, 500, { code: 'WORKER_ERROR', message: 'Function exited due to an error (please check logs)' }),
  /** 546 is the runtime's own status for a worker stopped at a resource limit. */
  workerLimit: (res: ServerResponse) =>
    sendJson(res, 546, {
      code: 'WORKER_LIMIT',
      message: 'Worker failed to respond due to a resource limit (please check logs)',
    }),
  payloadTooLarge: (res: ServerResponse, limit: number) =>
    sendJson(res, 413, { code: 'PAYLOAD_TOO_LARGE', message: `The request body exceeds the ${limit} byte limit` }),
};

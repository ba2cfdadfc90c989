import path from 'node:path';
import type { BackendDeps, BackendService } from '../service.ts';
import type { Storage } from './context.ts';
import { ObjectFiles } from './disk.ts';
import { errors, jwtFailureMessage, sendError, toStorageError } from './errors.ts';
import { route } from './routes.ts';

/**
 * The Supabase Storage-compatible service under /storage/v1: buckets and objects kept
 * in storage.buckets/storage.objects (RLS decides every caller action) with the bytes
 * under `<dataDir>/storage/<bucket>/`.
 */
export function createStorageService(deps: BackendDeps): BackendService {
  const storage: Storage = { deps, files: new ObjectFiles(path.join(deps.config.dataDir, 'storage')) };
  return {
    prefix: '/storage/v1',
    // Public and signed-URL routes ignore the bearer, and plain downloads treat a bad one
    // as anonymous (as hosted); the router refuses it everywhere else via rejectToken's shape.
    tolerateBadToken: true,
    rejectToken(res, error) {
      sendError(res, errors.accessDenied(jwtFailureMessage(error)));
    },
    async handle(req, res, ctx) {
      try {
        await route(storage, req, res, ctx);
      } catch (error) {
        sendError(res, toStorageError(error, deps.log), ctx.method);
      }
    },
  };
}

import type { ServerResponse } from 'node:http';
import { sendEmpty, sendJson } from '../gateway/http.ts';
import type { BackendDeps, BackendService } from '../service.ts';
import type { Call } from './call.ts';
import { AuthError, OAuthError, fromDatabaseError, sendAuthError, versionHeaders } from './errors.ts';
import { resolveOptions } from './options.ts';
import { SignInLimiter } from './rate-limit.ts';
import { route } from './routes.ts';
import type { TokenSigner } from './sessions.ts';
import path from 'node:path';
import { loadOrCreateSigningKeys, loadSigningKeys, trustSigningKeys, type SigningKey } from '../jwt-keys.ts';
import { Mailbox } from './mailbox.ts';

/** The signing keys the tuning asks for: a given JWK file, a kept ES256 key, or none (HS256). */
function signingKeys(deps: BackendDeps): SigningKey[] {
  const tuning = deps.config.auth ?? {};
  if (tuning.signingKeysPath) return loadSigningKeys(tuning.signingKeysPath);
  if (tuning.asymmetricKeys) return loadOrCreateSigningKeys(path.join(deps.config.dataDir, 'signing_keys.json'));
  return [];
}

/**
 * The GoTrue-compatible auth service under /auth/v1: email/password and anonymous users,
 * sessions with rotating refresh tokens, and the admin user API. It tolerates a bad bearer
 * at the gateway because sign-in sends only the anon key; routes that need a user or an
 * admin judge the token themselves and answer with GoTrue's codes.
 */
export function createAuthService(deps: BackendDeps): BackendService & { mailbox: Mailbox } {
  const options = resolveOptions(deps.config);
  const keys = signingKeys(deps);
  // Every verifier (gateway, realtime, storage) then also accepts tokens these keys signed.
  const untrust = keys.length > 0 ? trustSigningKeys(options.jwtSecret, keys) : () => undefined;
  const signer: TokenSigner = {
    secret: options.jwtSecret,
    expirySeconds: options.jwtExpirySeconds,
    issuer: () => `${deps.apiUrl()}/auth/v1`,
    ...(keys[0] ? { key: keys[0] } : {}),
  };
  const mailbox = new Mailbox();
  const limiter = new SignInLimiter(options.signInLimit, options.now);

  const fail = (res: ServerResponse, error: unknown, apiVersion: string | undefined, what: string): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (error instanceof AuthError || error instanceof OAuthError) {
      sendAuthError(res, error, apiVersion);
      return;
    }
    const known = fromDatabaseError(error);
    if (known) {
      sendAuthError(res, known, apiVersion);
      return;
    }
    deps.log(`[auth] ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    sendAuthError(
      res,
      new AuthError(500, 'unexpected_failure', 'Unexpected failure, please check server logs for more information'),
      apiVersion,
    );
  };

  return {
    mailbox,
    close: () => Promise.resolve(untrust()),
    prefix: '/auth/v1',
    tolerateBadToken: true,
    // GoTrue's admin API takes service_role and supabase_admin tokens (requireAdmin).
    acceptedRoles: ['supabase_admin'],
    async handle(req, res, ctx) {
      const apiVersion = ctx.headers['x-supabase-api-version'];
      const call: Call = {
        req,
        ctx,
        pool: deps.pool,
        options,
        signer,
        limiter,
        mailbox,
        apiUrl: deps.apiUrl,
        log: deps.log,
      };
      try {
        const reply = await route(ctx.method, ctx.path)(call);
        // Drain any body a handler did not read, so keep-alive connections stay usable.
        if (!req.readableEnded) req.resume();
        const headers = { ...versionHeaders(apiVersion), ...(reply.headers ?? {}) };
        if (reply.body === undefined) sendEmpty(res, reply.status, headers);
        else sendJson(res, reply.status, reply.body, headers);
      } catch (error) {
        if (!req.readableEnded) req.resume();
        fail(res, error, apiVersion, `${ctx.method} ${ctx.path}`);
      }
    },
  };
}

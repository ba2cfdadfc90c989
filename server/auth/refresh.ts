import type pg from 'pg';
import { asAdmin } from '../postgres/pool.ts';
import { AuthError, OAuthError, badRequest, validationFailed } from './errors.ts';
import { amrOf, insertRefreshToken, isWellFormedRefreshToken, sessionJson, type TokenSigner } from './sessions.ts';
import { isBanned, loadUser } from './users.ts';

interface TokenRow {
  id: string;
  token: string;
  revoked: boolean;
  session_id: string | null;
  user_id: string;
  updated_ms: string;
}

export interface RefreshDeps {
  pool: pg.Pool;
  signer: TokenSigner;
  now: () => number;
  reuseIntervalMs: number;
}

/**
 * The refresh_token grant with rotation and reuse detection:
 * - an active token is revoked and replaced by a child (parent = the old token);
 * - a revoked token presented again within the reuse interval (a client that lost the
 *   answer to its refresh, or two tabs racing) gets the session's current active token,
 *   no new one is minted;
 * - outside the interval it is treated as stolen: the whole session is destroyed (every
 *   refresh token with it, and access tokens then fail with session_not_found) and the
 *   caller gets refresh_token_already_used.
 * The session row is locked first, so concurrent refreshes of one session serialise.
 */
export async function refreshGrant(deps: RefreshDeps, refreshToken: string): Promise<Record<string, unknown>> {
  if (refreshToken === '') throw new OAuthError('invalid_request', 'refresh_token required');
  if (!isWellFormedRefreshToken(refreshToken)) throw validationFailed('Refresh token is not valid');
  const nowMs = deps.now();
  const now = new Date(nowMs).toISOString();
  const outcome = await asAdmin(deps.pool, async (db) => {
    const first = await db.query<{ session_id: string | null }>(
      `select session_id from auth.refresh_tokens where token = $1`,
      [refreshToken],
    );
    if (first.rowCount === 0)
      return badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    const sessionId = first.rows[0]!.session_id;
    const session = sessionId
      ? await db.query(`select id from auth.sessions where id = $1 for update`, [sessionId])
      : { rowCount: 0 };
    if (!sessionId || session.rowCount === 0) {
      return badRequest('session_not_found', 'Invalid Refresh Token: No Valid Session Found');
    }
    // Re-read under the session lock: a concurrent refresh may have just rotated it.
    const current = await db.query<TokenRow>(
      `select id::text, token, revoked, session_id, user_id,
              floor(extract(epoch from updated_at) * 1000)::bigint::text as updated_ms
         from auth.refresh_tokens where token = $1`,
      [refreshToken],
    );
    const token = current.rows[0];
    if (!token) return badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    const user = await loadUser(db, token.user_id);
    if (!user) return badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    if (isBanned(user.row, nowMs)) return badRequest('user_banned', 'Invalid Refresh Token: User Banned');

    let issued: string;
    if (token.revoked) {
      const active = await db.query<{ token: string }>(
        `select token from auth.refresh_tokens where session_id = $1 and revoked = false order by id desc limit 1`,
        [sessionId],
      );
      const withinGrace = nowMs - Number(token.updated_ms) <= deps.reuseIntervalMs;
      if (!withinGrace || active.rowCount === 0) {
        await db.query(`delete from auth.sessions where id = $1`, [sessionId]);
        // Returned, not thrown: the session's destruction must commit.
        return badRequest('refresh_token_already_used', 'Invalid Refresh Token: Already Used');
      }
      issued = active.rows[0]!.token;
    } else {
      await db.query(`update auth.refresh_tokens set revoked = true, updated_at = $2 where id = $1`, [token.id, now]);
      issued = await insertRefreshToken(db, token.user_id, sessionId, token.token, now);
    }
    await db.query(
      `update auth.sessions set updated_at = $2, refreshed_at = ($2::timestamptz at time zone 'utc') where id = $1`,
      [sessionId, now],
    );
    const amr = await amrOf(db, sessionId);
    return sessionJson(deps.signer, user, sessionId, issued, amr, nowMs);
  });
  if (outcome instanceof AuthError) throw outcome;
  return outcome;
}

import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import { asAdminRetrying, body, clientInfo, clock, ok, type Call, type Reply } from './call.ts';
import { AuthError, unprocessable, validationFailed } from './errors.ts';
import { isUuid, requireAdmin, requireUser, type Caller } from './guard.ts';
import { stringField } from './request.ts';
import { amrOf, insertRefreshToken, sessionJson } from './sessions.ts';
import { newTotpSecret, otpauthUri, verifyTotp } from './totp.ts';
import { loadUser, type Db } from './users.ts';

/**
 * MFA with TOTP factors, as GoTrue serves it: enroll (secret, otpauth URI, QR SVG), challenge,
 * verify (the session becomes aal2: a `totp` amr entry, a fresh token pair), unenroll, and the
 * admin factor API. WebAuthn and phone factors are not offered.
 */

const MAX_FACTORS = 10;
const CHALLENGE_EXPIRY_SECONDS = 300;

export interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: string;
  status: string;
  created_at: string;
  updated_at: string;
  secret: string | null;
  last_challenged_at: string | null;
}

const FACTOR_COLUMNS = `id, user_id, friendly_name, factor_type::text, status::text,
  to_char(created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
  to_char(updated_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at, secret,
  to_char(last_challenged_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as last_challenged_at`;

/** A factor as GoTrue's models.Factor marshals (the secret never leaves after enrolment). */
export function factorJson(f: FactorRow): Record<string, unknown> {
  return {
    id: f.id,
    friendly_name: f.friendly_name ?? '',
    factor_type: f.factor_type,
    status: f.status,
    created_at: f.created_at,
    updated_at: f.updated_at,
    ...(f.last_challenged_at ? { last_challenged_at: f.last_challenged_at } : {}),
  };
}

export async function factorsOf(db: Db, userId: string): Promise<FactorRow[]> {
  const result = await db.query<FactorRow>(
    `select ${FACTOR_COLUMNS} from auth.mfa_factors where user_id = $1 order by created_at, id`,
    [userId],
  );
  return result.rows;
}

/** GoTrue's requireAuthentication + requireNotAnonymous, in front of every /factors route. */
async function requireFactorUser(call: Call): Promise<Caller> {
  const caller = await requireUser(call);
  if (caller.isAnonymous) {
    throw new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions');
  }
  return caller;
}

async function callerFactor(call: Call, caller: Caller, factorId: string): Promise<FactorRow> {
  const result = isUuid(factorId)
    ? await call.pool.query<FactorRow>(
        `select ${FACTOR_COLUMNS} from auth.mfa_factors where id = $1 and user_id = $2`,
        [factorId, caller.user.row.id],
      )
    : { rows: [] };
  const factor = result.rows[0];
  if (!factor) throw new AuthError(404, 'mfa_factor_not_found', 'Factor not found');
  return factor;
}

const factorIdOf = (call: Call) => /^\/factors\/([^/]+)/.exec(call.ctx.path)?.[1] ?? '';

/** POST /factors {factor_type: 'totp', friendly_name, issuer}. */
export async function enroll(call: Call): Promise<Reply> {
  const caller = await requireFactorUser(call);
  const params = await body(call, true);
  const type = stringField(params, 'factor_type');
  if (type === 'webauthn')
    throw unprocessable('mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
  if (type === 'phone') throw unprocessable('mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
  if (type !== 'totp') throw validationFailed('Invalid factor type, must be one of totp, phone or webauthn');
  const friendlyName = stringField(params, 'friendly_name');
  const issuer = stringField(params, 'issuer') || new URL(call.options.siteUrl).hostname;
  const { row } = caller.user;
  const factors = await factorsOf(call.pool, row.id);
  if (friendlyName !== '' && factors.some((f) => f.friendly_name === friendlyName)) {
    throw unprocessable(
      'mfa_factor_name_conflict',
      `A factor with the friendly name "${friendlyName}" for this user already exists`,
    );
  }
  if (factors.filter((f) => f.status === 'verified').length >= MAX_FACTORS) {
    throw unprocessable(
      'too_many_enrolled_mfa_factors',
      'Maximum number of verified factors reached, unenroll to continue',
    );
  }
  const secret = newTotpSecret();
  const uri = otpauthUri(issuer, row.email || row.phone || row.id, secret);
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 2 });
  const id = randomUUID();
  const { now } = clock(call);
  await call.pool.query(
    `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
     values ($1, $2, $3, 'totp', 'unverified', $4, $4, $5)`,
    [id, row.id, friendlyName, now, secret],
  );
  return ok({ id, type: 'totp', friendly_name: friendlyName, totp: { qr_code: svg, secret, uri } });
}

/** POST /factors/:id/challenge */
export async function challenge(call: Call): Promise<Reply> {
  const caller = await requireFactorUser(call);
  const factor = await callerFactor(call, caller, factorIdOf(call));
  const id = randomUUID();
  const { nowMs, now } = clock(call);
  await call.pool.query(
    `insert into auth.mfa_challenges (id, factor_id, created_at, ip_address) values ($1, $2, $3, coalesce($4::inet, '127.0.0.1'))`,
    [id, factor.id, now, clientInfo(call).ip],
  );
  await call.pool.query(`update auth.mfa_factors set last_challenged_at = $2 where id = $1`, [factor.id, now]);
  return ok({ id, type: 'totp', expires_at: Math.floor(nowMs / 1000) + CHALLENGE_EXPIRY_SECONDS });
}

/** POST /factors/:id/verify {challenge_id, code}: the session steps up to aal2. */
export async function verifyFactor(call: Call): Promise<Reply> {
  const caller = await requireFactorUser(call);
  const factor = await callerFactor(call, caller, factorIdOf(call));
  const params = await body(call);
  const challengeId = stringField(params, 'challenge_id');
  const code = stringField(params, 'code').trim();
  const found = isUuid(challengeId)
    ? await call.pool.query<{ created: string; verified: boolean }>(
        `select extract(epoch from created_at)::text as created, verified_at is not null as verified
           from auth.mfa_challenges where id = $1 and factor_id = $2`,
        [challengeId, factor.id],
      )
    : { rows: [] };
  const row = found.rows[0];
  if (!row) throw new AuthError(404, 'mfa_factor_not_found', 'MFA factor with the provided challenge ID not found');
  const { nowMs, now } = clock(call);
  if (row.verified || nowMs > Number(row.created) * 1000 + CHALLENGE_EXPIRY_SECONDS * 1000) {
    throw unprocessable(
      'mfa_challenge_expired',
      `MFA challenge ${challengeId} has expired, verify against another challenge or create a new challenge.`,
    );
  }
  if (!verifyTotp(factor.secret ?? '', code, nowMs)) {
    throw unprocessable('mfa_verification_failed', 'Invalid TOTP code entered');
  }
  const sessionId = caller.sessionId;
  if (!sessionId) throw new AuthError(401, 'session_not_found', 'Session not found');
  return asAdminRetrying(call.pool, async (db) => {
    await db.query(`update auth.mfa_challenges set verified_at = $2 where id = $1`, [challengeId, now]);
    await db.query(`update auth.mfa_factors set status = 'verified', updated_at = $2 where id = $1`, [factor.id, now]);
    await db.query(`update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = $3 where id = $1`, [
      sessionId,
      factor.id,
      now,
    ]);
    await db.query(
      `insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)
       values ($1, $2, $2, 'totp', $3)
       on conflict (session_id, authentication_method) do update set updated_at = excluded.updated_at`,
      [sessionId, now, randomUUID()],
    );
    await db.query(`update auth.refresh_tokens set revoked = true, updated_at = $2 where session_id = $1`, [
      sessionId,
      now,
    ]);
    const refreshToken = await insertRefreshToken(db, caller.user.row.id, sessionId, null, now);
    const user = (await loadUser(db, caller.user.row.id))!;
    return ok(sessionJson(call.signer, user, sessionId, refreshToken, await amrOf(db, sessionId), nowMs));
  });
}

/** DELETE /factors/:id: a verified factor needs an aal2 session. */
export async function unenroll(call: Call): Promise<Reply> {
  const caller = await requireFactorUser(call);
  const factor = await callerFactor(call, caller, factorIdOf(call));
  if (factor.status === 'verified' && call.ctx.claims.aal !== 'aal2') {
    throw new AuthError(401, 'insufficient_aal', 'AAL2 required to unenroll verified factor');
  }
  await call.pool.query(`delete from auth.mfa_factors where id = $1`, [factor.id]);
  return ok({ id: factor.id });
}

const adminPath = (call: Call) => /^\/admin\/users\/([^/]+)\/factors(?:\/([^/]+))?$/.exec(call.ctx.path);

/** GET /admin/users/:id/factors */
export async function adminListFactors(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const userId = adminPath(call)?.[1] ?? '';
  if (!isUuid(userId)) throw new AuthError(404, 'user_not_found', 'User not found');
  if (!(await loadUser(call.pool, userId))) throw new AuthError(404, 'user_not_found', 'User not found');
  return ok((await factorsOf(call.pool, userId)).map(factorJson));
}

/** DELETE /admin/users/:id/factors/:factorId */
export async function adminDeleteFactor(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const match = adminPath(call);
  const userId = match?.[1] ?? '';
  const factorId = match?.[2] ?? '';
  if (!isUuid(userId) || !(await loadUser(call.pool, userId)))
    throw new AuthError(404, 'user_not_found', 'User not found');
  const factor = isUuid(factorId) ? (await factorsOf(call.pool, userId)).find((f) => f.id === factorId) : undefined;
  if (!factor) throw new AuthError(404, 'mfa_factor_not_found', 'Factor not found');
  await call.pool.query(`delete from auth.mfa_factors where id = $1`, [factor.id]);
  return ok(factorJson(factor));
}

import { randomInt, randomUUID } from 'node:crypto';
import { signWithKey, type SigningKey } from '../jwt-keys.ts';
import { signJwt } from '../jwt.ts';
import { INSTANCE_ID, type Db, type LoadedUser, userJson } from './users.ts';

/** How a session was started; becomes the `amr` method of its access tokens. */
export type AuthMethod = 'password' | 'anonymous' | 'otp' | 'totp';

export interface TokenSigner {
  secret: string;
  expirySeconds: number;
  /** `${apiUrl}/auth/v1`, the issuer GoTrue writes. */
  issuer: () => string;
  /** With asymmetric keys, access tokens are signed with this one (RS256/ES256, `kid` header). */
  key?: SigningKey;
}

/** Where a session was opened from, kept on auth.sessions as GoTrue does. */
export interface ClientInfo {
  userAgent: string | null;
  ip: string | null;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A GoTrue v1 refresh token: 12 random lower-case alphanumerics (crypto.SecureAlphanumeric). */
export function newRefreshToken(): string {
  let token = '';
  for (let i = 0; i < 12; i += 1) token += ALPHABET[randomInt(ALPHABET.length)]!;
  return token;
}

/** Refresh tokens this server issues look like this; anything else is refused before SQL. */
export function isWellFormedRefreshToken(token: string): boolean {
  return /^[a-z0-9]{12}$/.test(token);
}

export async function insertRefreshToken(
  db: Db,
  userId: string,
  sessionId: string,
  parent: string | null,
  now: string,
): Promise<string> {
  const token = newRefreshToken();
  await db.query(
    `insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ($1, $2, $3, false, $4, $4, $5, $6)`,
    [INSTANCE_ID, token, userId, now, parent, sessionId],
  );
  return token;
}

/**
 * Opens a session for a user who just authenticated: the session row, its amr claim, the
 * first refresh token, and last_sign_in_at. Runs inside the caller's transaction.
 */
export async function openSession(
  db: Db,
  userId: string,
  method: AuthMethod,
  client: ClientInfo,
  now: string,
): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = randomUUID();
  await db.query(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip)
     values ($1, $2, $3, $3, 'aal1', $4, $5::inet)`,
    [sessionId, userId, now, client.userAgent, client.ip],
  );
  await db.query(
    `insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)
     values ($1, $2, $2, $3, $4)`,
    [sessionId, now, method, randomUUID()],
  );
  const refreshToken = await insertRefreshToken(db, userId, sessionId, null, now);
  await db.query(`update auth.users set last_sign_in_at = $2 where id = $1`, [userId, now]);
  await db.query(`update auth.identities set last_sign_in_at = $2 where user_id = $1`, [userId, now]);
  return { sessionId, refreshToken };
}

export interface AmrEntry {
  method: string;
  timestamp: number;
}

export async function amrOf(db: Db, sessionId: string): Promise<AmrEntry[]> {
  const result = await db.query<{ method: string; ts: string }>(
    `select authentication_method as method, floor(extract(epoch from created_at))::bigint::text as ts
       from auth.mfa_amr_claims where session_id = $1 order by created_at desc`,
    [sessionId],
  );
  return result.rows.map((r) => ({ method: r.method, timestamp: Number(r.ts) }));
}

/** The HS256 access token GoTrue issues, claim for claim. */
export function accessToken(
  signer: TokenSigner,
  user: LoadedUser,
  sessionId: string,
  amr: AmrEntry[],
  nowMs: number,
): { token: string; expiresAt: number } {
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + signer.expirySeconds;
  const { row } = user;
  const claims = {
    iss: signer.issuer(),
    sub: row.id,
    aud: row.aud ?? 'authenticated',
    exp,
    iat,
    email: row.email ?? '',
    phone: row.phone ?? '',
    app_metadata: row.raw_app_meta_data ?? {},
    user_metadata: row.raw_user_meta_data ?? {},
    role: row.role ?? 'authenticated',
    // A verified TOTP factor in this session's amr makes it aal2 (GoTrue keeps it on the session row).
    aal: amr.some((entry) => entry.method === 'totp') ? 'aal2' : 'aal1',
    amr,
    session_id: sessionId,
    is_anonymous: row.is_anonymous,
  };
  const token = signer.key ? signWithKey(claims, signer.key) : signJwt(claims, signer.secret);
  return { token, expiresAt: exp };
}

/** The body of a successful sign-in, sign-up or refresh (GoTrue's AccessTokenResponse). */
export function sessionJson(
  signer: TokenSigner,
  user: LoadedUser,
  sessionId: string,
  refreshToken: string,
  amr: AmrEntry[],
  nowMs: number,
): Record<string, unknown> {
  const { token, expiresAt } = accessToken(signer, user, sessionId, amr, nowMs);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: expiresAt - Math.floor(nowMs / 1000),
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

export async function sessionExists(db: Db, sessionId: string): Promise<boolean> {
  const result = await db.query(`select 1 from auth.sessions where id = $1`, [sessionId]);
  return (result.rowCount ?? 0) > 0;
}

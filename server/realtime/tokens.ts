import { JwtError, verifyJwt, type JwtClaims } from '../jwt.ts';
import { isRequestRole, type RequestRole } from '../postgres/pool.ts';

/** Who a channel acts as: the role and claims its RLS checks and change feed use. */
export interface Identity {
  role: RequestRole;
  claims: Record<string, unknown>;
  /** Seconds since the epoch, when the token expires. */
  exp: number | null;
  token: string | null;
}

/**
 * A token refused the way hosted Realtime refuses it: `code` prefixes join error
 * reasons ("InvalidJWTToken: ..."), `message` alone ends a joined channel.
 */
export class TokenError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  get reason(): string {
    return `${this.code}: ${this.message}`;
  }
}

function expiredFor(token: string, now: number): number {
  try {
    const payload = token.split('.')[1] ?? '';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JwtClaims;
    return typeof claims.exp === 'number' ? Math.max(0, now - claims.exp) : 0;
  } catch {
    return 0;
  }
}

/** Verifies a channel's access token as hosted Realtime does: signature, `role` and `exp` required. */
export function verifyAccessToken(token: string, secret: string, now = Math.floor(Date.now() / 1000)): Identity {
  let claims: JwtClaims;
  try {
    claims = verifyJwt(token.replace(/\s/g, ''), secret, now);
  } catch (error) {
    if (!(error instanceof JwtError)) throw error;
    if (error.reason === 'expired') {
      throw new TokenError('InvalidJWTToken', `Token has expired ${expiredFor(token, now)} seconds ago`);
    }
    if (error.reason === 'malformed') throw new TokenError('MalformedJWT', 'The token provided is not a valid JWT');
    throw new TokenError('JwtSignatureError', 'Failed to validate JWT signature');
  }
  if (claims.role === undefined || typeof claims.exp !== 'number') {
    throw new TokenError('InvalidJWTToken', 'Fields `role` and `exp` are required in JWT');
  }
  if (!isRequestRole(claims.role)) {
    throw new TokenError('InvalidJWTToken', `Role ${JSON.stringify(claims.role)} is not allowed`);
  }
  return { role: claims.role, claims, exp: claims.exp, token };
}

/** The identity of a socket opened without any JWT: anon, as the gateway decides. */
export function anonymousIdentity(): Identity {
  return { role: 'anon', claims: { role: 'anon' }, exp: null, token: null };
}

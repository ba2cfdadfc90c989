import { createHmac, timingSafeEqual } from 'node:crypto';
import { isAsymmetricAlg, signingKeysFor, verifyAsymmetric } from './jwt-keys.ts';

/** Claims of a Supabase JWT; `role` chooses the PostgreSQL role. */
export interface JwtClaims {
  role?: string;
  sub?: string;
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
}

export type JwtFailure = 'malformed' | 'bad_signature' | 'expired' | 'unsupported_alg';

export class JwtError extends Error {
  constructor(
    readonly reason: JwtFailure,
    message: string,
  ) {
    super(message);
  }
}

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

function base64url(text: string | Buffer): string {
  return Buffer.from(text).toString('base64url');
}

function signature(secret: string, signingInput: string): Buffer {
  return createHmac('sha256', secret).update(signingInput).digest();
}

/** Signs claims as an HS256 JWT, header `{"alg":"HS256","typ":"JWT"}` as GoTrue writes it. */
export function signJwt(claims: JwtClaims, secret: string): string {
  const input = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${signature(secret, input).toString('base64url')}`;
}

/** Verifies an HS256 JWT and its expiry; throws JwtError with the reason. */
export function verifyJwt(token: string, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): JwtClaims {
  const parts = token.split('.');
  if (parts.length !== 3)
    throw new JwtError('malformed', 'invalid JWT: unable to parse or verify signature, token is malformed');
  const [header, payload, sig] = parts as [string, string, string];
  let alg: unknown;
  let kid: unknown;
  let claims: unknown;
  try {
    ({ alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown; kid?: unknown });
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new JwtError('malformed', 'invalid JWT: unable to parse or verify signature, token is malformed');
  }
  const given = Buffer.from(sig, 'base64url');
  const badSignature = () =>
    new JwtError('bad_signature', 'invalid JWT: unable to parse or verify signature, signature is invalid');
  if (isAsymmetricAlg(alg) && signingKeysFor(secret).length > 0) {
    // Only when the backend was given signing keys (server/jwt-keys.ts); else the method is refused.
    if (!verifyAsymmetric(secret, alg, kid, `${header}.${payload}`, given)) throw badSignature();
  } else if (alg !== 'HS256') {
    throw new JwtError(
      'unsupported_alg',
      'invalid JWT: unable to parse or verify signature, signing method is invalid',
    );
  } else {
    const expected = signature(secret, `${header}.${payload}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badSignature();
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new JwtError('malformed', 'invalid JWT: unable to parse or verify signature, token is malformed');
  }
  const typed = claims as JwtClaims;
  if (typeof typed.exp === 'number' && typed.exp <= nowSeconds) {
    throw new JwtError(
      'expired',
      'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired',
    );
  }
  return typed;
}

/** Verified tokens, per secret: each request of a session carries the same token. */
const verified = new Map<string, Map<string, JwtClaims>>();
const MAX_VERIFIED = 10_000;

/**
 * verifyJwt with a memory of tokens already verified under `secret`: a token's signature is
 * checked once, its expiry at every use (an expired one is forgotten and refused with
 * verifyJwt's error). Only valid tokens are kept, at most MAX_VERIFIED (oldest first out);
 * each caller gets its own copy of the claims.
 */
export function verifyJwtCached(token: string, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): JwtClaims {
  let tokens = verified.get(secret);
  const known = tokens?.get(token);
  if (known && !(typeof known.exp === 'number' && known.exp <= nowSeconds)) return { ...known };
  if (known) tokens!.delete(token);
  const claims = verifyJwt(token, secret, nowSeconds);
  if (!tokens) {
    tokens = new Map();
    verified.set(secret, tokens);
  }
  if (tokens.size >= MAX_VERIFIED) tokens.delete(tokens.keys().next().value as string);
  tokens.set(token, claims);
  return { ...claims };
}

/** The Supabase CLI's demo keys: the same claims, signed with the configured secret. */
export function demoKeys(secret: string): { anonKey: string; serviceRoleKey: string } {
  const exp = 1983812996;
  return {
    anonKey: signJwt({ iss: 'supabase-demo', role: 'anon', exp }, secret),
    serviceRoleKey: signJwt({ iss: 'supabase-demo', role: 'service_role', exp }, secret),
  };
}

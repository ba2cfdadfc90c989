import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Asymmetric JWT signing keys, as the Supabase CLI's `signing_keys_path` gives GoTrue: a JSON
 * array (or `{keys: [...]}`) of private JWKs, RSA (RS256) or P-256 (ES256). The first key signs
 * new access tokens; every key verifies. The HS256 secret stays valid for the legacy keys.
 */
export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public half as published at /.well-known/jwks.json. */
  publicJwk: Record<string, unknown>;
}

type Jwk = Record<string, unknown>;

function fromJwk(jwk: Jwk): SigningKey {
  const kty = jwk.kty;
  if (kty !== 'RSA' && kty !== 'EC') throw new Error(`signing key: unsupported kty ${String(kty)} (RSA or EC P-256)`);
  if (kty === 'EC' && jwk.crv !== 'P-256') throw new Error(`signing key: unsupported curve ${String(jwk.crv)}`);
  if (typeof jwk.d !== 'string') throw new Error('signing key: the JWK has no private part ("d")');
  const alg = kty === 'RSA' ? 'RS256' : 'ES256';
  const privateKey = createPrivateKey({ key: jwk as never, format: 'jwk' });
  const publicKey = createPublicKey(privateKey);
  const kid = typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : randomUUID();
  const exported = publicKey.export({ format: 'jwk' }) as Jwk;
  const publicJwk: Jwk = { ...exported, kid, alg, use: 'sig', key_ops: ['verify'] };
  return { kid, alg, privateKey, publicKey, publicJwk };
}

/** Reads a signing-keys file; throws a readable error for a missing or unusable one. */
export function loadSigningKeys(file: string): SigningKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`signing keys ${file}: ${(error as Error).message}`, { cause: error });
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list) || list.length === 0)
    throw new Error(`signing keys ${file}: expected a non-empty JWK array`);
  return list.map((jwk) => fromJwk(jwk as Jwk));
}

/** A new ES256 key as a private JWK (what `supabase gen signing-key` writes). */
export function generateSigningJwk(): Jwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    ...(privateKey.export({ format: 'jwk' }) as Jwk),
    kid: randomUUID(),
    alg: 'ES256',
    use: 'sig',
    key_ops: ['sign', 'verify'],
  };
}

/** The keys in `file`, writing a new ES256 key there first when the file does not exist. */
export function loadOrCreateSigningKeys(file: string): SigningKey[] {
  if (!existsSync(file)) mkdirSync(path.dirname(file), { recursive: true });
  if (!existsSync(file)) writeFileSync(file, `${JSON.stringify([generateSigningJwk()], null, 2)}\n`, { mode: 0o600 });
  return loadSigningKeys(file);
}

/**
 * The keys each backend trusts, by its HS256 secret: every verifier (gateway, realtime, storage)
 * is handed only the secret, so the backend's asymmetric keys ride along with it.
 */
const trusted = new Map<string, SigningKey[]>();

export function trustSigningKeys(secret: string, keys: SigningKey[]): () => void {
  trusted.set(secret, keys);
  return () => {
    if (trusted.get(secret) === keys) trusted.delete(secret);
  };
}

export function signingKeysFor(secret: string): SigningKey[] {
  return trusted.get(secret) ?? [];
}

/** Verifies an RS256/ES256 signature with the key named by `kid` (or any trusted key without one). */
export function verifyAsymmetric(secret: string, alg: string, kid: unknown, input: string, signature: Buffer): boolean {
  const keys = signingKeysFor(secret).filter((k) => k.alg === alg && (typeof kid !== 'string' || k.kid === kid));
  return keys.some((key) =>
    verify('sha256', Buffer.from(input), { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature),
  );
}

export function isAsymmetricAlg(alg: unknown): alg is 'RS256' | 'ES256' {
  return alg === 'RS256' || alg === 'ES256';
}

/** Signs claims with `key`, header `{alg, kid, typ}` as GoTrue writes it. */
export function signWithKey(claims: object, key: SigningKey): string {
  const header = Buffer.from(JSON.stringify({ alg: key.alg, kid: key.kid, typ: 'JWT' })).toString('base64url');
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const sig = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

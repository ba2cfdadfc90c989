import { signingKeysFor } from '../jwt-keys.ts';
import { ok, type Call, type Reply } from './call.ts';

/**
 * GET /.well-known/jwks.json: the public halves of the signing keys (empty with HS256 only,
 * as GoTrue's is: a shared secret is never published). supabase-js getClaims() verifies
 * RS256/ES256 access tokens locally with these.
 */
export function jwks(call: Call): Promise<Reply> {
  const keys = signingKeysFor(call.options.jwtSecret).map((k) => k.publicJwk);
  return Promise.resolve(ok({ keys }, { 'cache-control': 'public, max-age=600' }));
}

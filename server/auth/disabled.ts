import { body, type Call, type Reply } from './call.ts';
import { AuthError } from './errors.ts';
import { requireAdmin, requireUser } from './guard.ts';

/**
 * Features this backend does not offer, answered as GoTrue answers them when they are
 * turned off in its configuration (never a bare 404): SAML SSO, web3 and id_token
 * grants and manual identity linking.
 */

/** POST /sso */
export function sso(): Promise<Reply> {
  return Promise.reject(new AuthError(404, 'saml_provider_disabled', 'SAML 2.0 is disabled'));
}

/** The issuers GoTrue names for the id_token providers it knows. */
const ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
  azure: 'https://login.microsoftonline.com',
  facebook: 'https://www.facebook.com',
  keycloak: 'keycloak',
  kakao: 'https://kauth.kakao.com',
};

/** POST /token?grant_type=id_token: no provider is enabled. */
export async function idTokenGrant(call: Call): Promise<Reply> {
  const params = await body(call, true);
  const provider = typeof params.provider === 'string' ? params.provider : '';
  const issuer = ISSUERS[provider] ?? provider;
  throw new AuthError(400, 'provider_disabled', `Provider (issuer "${issuer}") is not enabled`);
}

/** POST /token?grant_type=web3 */
export function web3Grant(): Promise<Reply> {
  return Promise.reject(new AuthError(400, 'web3_provider_disabled', 'Web3 provider is disabled'));
}

/** GET /user/identities/authorize, DELETE /user/identities/:id: for a signed-in caller only. */
export async function manualLinking(call: Call): Promise<Reply> {
  await requireUser(call);
  throw new AuthError(404, 'manual_linking_disabled', 'Manual linking is disabled');
}

/** /passkeys/...: GoTrue checks the feature before authentication. */
export function passkeys(): Promise<Reply> {
  return Promise.reject(new AuthError(404, 'passkey_disabled', 'Passkeys are disabled'));
}

const oauthServerDisabled = () => new AuthError(404, 'feature_disabled', 'OAuth server is disabled');

/** /oauth/... (the OAuth 2.1 server) and its discovery document. */
export function oauthServer(): Promise<Reply> {
  return Promise.reject(oauthServerDisabled());
}

/** /admin/oauth/clients...: admin credentials first, then the feature. */
export async function adminOAuthServer(call: Call): Promise<Reply> {
  await requireAdmin(call);
  throw oauthServerDisabled();
}

/** /admin/custom-providers...: admin credentials first, then the feature. */
export async function adminCustomProviders(call: Call): Promise<Reply> {
  await requireAdmin(call);
  throw new AuthError(404, 'feature_disabled', 'Custom OAuth providers are disabled');
}

/** /user/oauth/grants: a signed-in user first, then the feature. */
export async function userOAuthGrants(call: Call): Promise<Reply> {
  await requireUser(call);
  throw oauthServerDisabled();
}

import { createUser, deleteUserById, getUserById, listUsers, updateUserById } from './admin.ts';
import { ok, type Call, type Handler, type Reply } from './call.ts';
import {
  adminCustomProviders,
  adminOAuthServer,
  manualLinking,
  oauthServer,
  passkeys,
  sso,
  userOAuthGrants,
} from './disabled.ts';
import { adminDeleteFactor, adminListFactors, challenge, enroll, unenroll, verifyFactor } from './mfa.ts';
import { AuthError } from './errors.ts';
import { signup } from './signup.ts';
import { token } from './token.ts';
import { verify, verifyLink } from './verify.ts';
import { generateLink, invite } from './admin-links.ts';
import { magicLinkRoute, otp, reauthenticate, recover, resend } from './email-flows.ts';
import { jwks } from './keys-routes.ts';
import { getUser, logout, updateUser } from './user-routes.ts';

export const AUTH_VERSION = 'v2.180.0-chartroom';

function health(): Promise<Reply> {
  return Promise.resolve(
    ok({ version: AUTH_VERSION, name: 'GoTrue', description: 'GoTrue is a user registration and authentication API' }),
  );
}

/** GET /settings: what supabase-js and dashboards read to decide which sign-ins to offer. */
function settings(call: Call): Promise<Reply> {
  const providers = [
    'apple',
    'azure',
    'bitbucket',
    'discord',
    'facebook',
    'snapchat',
    'figma',
    'fly',
    'github',
    'gitlab',
    'google',
    'keycloak',
    'kakao',
    'linkedin',
    'linkedin_oidc',
    'notion',
    'spotify',
    'slack',
    'slack_oidc',
    'workos',
    'twitch',
    'twitter',
    'phone',
    'zoom',
  ];
  const external: Record<string, boolean> = { anonymous_users: call.options.anonymousSignIns, email: true };
  for (const name of providers) external[name] = false;
  return Promise.resolve(
    ok({
      external,
      disable_signup: call.options.disableSignup,
      mailer_autoconfirm: call.options.autoConfirm,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
      saml_private_key_next_configured: false,
      passkeys_enabled: false,
    }),
  );
}

type Route = [method: string, pattern: RegExp, handler: Handler];

/** Matches every method (routes that answer the same for all). */
const ANY = '*';

const ROUTES: Route[] = [
  ['GET', /^\/health$/, health],
  ['GET', /^\/settings$/, settings],
  ['GET', /^\/\.well-known\/jwks\.json$/, jwks],
  ['POST', /^\/signup$/, signup],
  ['POST', /^\/token$/, token],
  ['GET', /^\/user$/, getUser],
  ['PUT', /^\/user$/, updateUser],
  ['POST', /^\/logout$/, logout],
  ['POST', /^\/sso$/, sso],
  ['POST', /^\/verify$/, verify],
  ['GET', /^\/verify$/, verifyLink],
  ['POST', /^\/otp$/, otp],
  ['POST', /^\/magiclink$/, magicLinkRoute],
  ['POST', /^\/recover$/, recover],
  ['POST', /^\/resend$/, resend],
  ['GET', /^\/reauthenticate$/, reauthenticate],
  ['POST', /^\/invite$/, invite],
  ['POST', /^\/admin\/generate_link$/, generateLink],
  ['GET', /^\/user\/identities\/authorize$/, manualLinking],
  ['DELETE', /^\/user\/identities\/[^/]+$/, manualLinking],
  ['POST', /^\/factors$/, enroll],
  ['POST', /^\/factors\/[^/]+\/challenge$/, challenge],
  ['POST', /^\/factors\/[^/]+\/verify$/, verifyFactor],
  ['DELETE', /^\/factors\/[^/]+$/, unenroll],
  ['GET', /^\/admin\/users\/[^/]+\/factors$/, adminListFactors],
  ['DELETE', /^\/admin\/users\/[^/]+\/factors\/[^/]+$/, adminDeleteFactor],
  // Features not offered here answer GoTrue's own "disabled" errors (never a bare 404 route miss).
  [ANY, /^\/passkeys(\/.*)?$/, passkeys],
  [ANY, /^\/oauth(\/.*)?$/, oauthServer],
  ['GET', /^\/\.well-known\/oauth-authorization-server$/, oauthServer],
  [ANY, /^\/admin\/oauth(\/.*)?$/, adminOAuthServer],
  [ANY, /^\/admin\/custom-providers(\/.*)?$/, adminCustomProviders],
  [ANY, /^\/user\/oauth\/grants$/, userOAuthGrants],
  ['GET', /^\/admin\/users$/, listUsers],
  ['POST', /^\/admin\/users$/, createUser],
  ['GET', /^\/admin\/users\/[^/]+$/, getUserById],
  ['PUT', /^\/admin\/users\/[^/]+$/, updateUserById],
  ['DELETE', /^\/admin\/users\/[^/]+$/, deleteUserById],
];

/** Picks the handler for a method and path below /auth/v1; 404 and 405 as errors. */
export function route(method: string, path: string): Handler {
  const normalised = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const matching = ROUTES.filter(([, pattern]) => pattern.test(normalised));
  const found = matching.find(([m]) => m === ANY || m === method || (method === 'HEAD' && m === 'GET'));
  if (found) return found[2];
  if (matching.length > 0) {
    return () =>
      Promise.reject(new AuthError(405, 'validation_failed', `Method ${method} not allowed on ${normalised}`));
  }
  return () => Promise.reject(new AuthError(404, 'not_found', 'Not Found'));
}

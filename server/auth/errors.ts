import type { ServerResponse } from 'node:http';
import { sendJson } from '../gateway/http.ts';

/**
 * GoTrue's error codes (supabase/auth `apierrors/errorcode.go`) that this service emits.
 * supabase-js turns `code` into `AuthApiError.code`; apps branch on it, so spell them exactly.
 */
export type AuthErrorCode =
  | 'anonymous_provider_disabled'
  | 'bad_json'
  | 'bad_jwt'
  | 'conflict'
  | 'email_exists'
  | 'email_not_confirmed'
  | 'feature_disabled'
  | 'insufficient_aal'
  | 'invalid_credentials'
  | 'manual_linking_disabled'
  | 'mfa_challenge_expired'
  | 'mfa_factor_name_conflict'
  | 'mfa_factor_not_found'
  | 'mfa_phone_enroll_not_enabled'
  | 'mfa_totp_enroll_not_enabled'
  | 'mfa_verification_failed'
  | 'mfa_webauthn_enroll_not_enabled'
  | 'no_authorization'
  | 'not_admin'
  | 'not_found'
  | 'otp_disabled'
  | 'otp_expired'
  | 'over_email_send_rate_limit'
  | 'over_request_rate_limit'
  | 'passkey_disabled'
  | 'phone_exists'
  | 'phone_not_confirmed'
  | 'phone_provider_disabled'
  | 'provider_disabled'
  | 'reauthentication_needed'
  | 'reauthentication_not_valid'
  | 'refresh_token_already_used'
  | 'refresh_token_not_found'
  | 'request_entity_too_large'
  | 'same_password'
  | 'saml_provider_disabled'
  | 'session_not_found'
  | 'signup_disabled'
  | 'too_many_enrolled_mfa_factors'
  | 'unexpected_failure'
  | 'user_already_exists'
  | 'user_banned'
  | 'user_not_found'
  | 'validation_failed'
  | 'weak_password'
  | 'web3_provider_disabled';

/** An error a handler throws; the service renders it in the shape the caller asked for. */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: AuthErrorCode,
    message: string,
    /** Extra top-level fields (weak_password carries its reasons). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * GoTrue answers a few refresh-token failures in the OAuth2 shape
 * `{error, error_description}` regardless of API version; supabase-js reads either.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

export const badRequest = (code: AuthErrorCode, message: string) => new AuthError(400, code, message);
export const validationFailed = (message: string) => new AuthError(400, 'validation_failed', message);
export const forbidden = (code: AuthErrorCode, message: string) => new AuthError(403, code, message);
export const unprocessable = (code: AuthErrorCode, message: string) => new AuthError(422, code, message);

export const API_VERSION_HEADER = 'x-supabase-api-version';
const API_VERSION_2024 = '2024-01-01';

/**
 * The API version a request asked for, as GoTrue decides it: a date header at or after
 * 2024-01-01 selects the current error shape; anything else (absent, unparsable, older)
 * keeps the initial, legacy shape.
 */
export function wantsCurrentShape(headerValue: string | undefined): boolean {
  if (!headerValue || !/^\d{4}-\d{2}-\d{2}$/.test(headerValue)) return false;
  const time = Date.parse(`${headerValue}T00:00:00Z`);
  return Number.isFinite(time) && time >= Date.parse(`${API_VERSION_2024}T00:00:00Z`);
}

/** Headers every auth response carries: the echoed API version when one was chosen. */
export function versionHeaders(headerValue: string | undefined): Record<string, string> {
  return wantsCurrentShape(headerValue) ? { [API_VERSION_HEADER]: API_VERSION_2024 } : {};
}

/**
 * Renders an error as GoTrue does: `{code, message}` for API version 2024-01-01 and
 * later, else the legacy `{code: <status>, error_code, msg}`; both carry the
 * `x-sb-error-code` header.
 */
export function sendAuthError(
  res: ServerResponse,
  error: AuthError | OAuthError,
  apiVersion: string | undefined,
): void {
  const headers = versionHeaders(apiVersion);
  if (error instanceof OAuthError) {
    sendJson(res, 400, { error: error.error, error_description: error.description }, headers);
    return;
  }
  headers['x-sb-error-code'] = error.code;
  const body = wantsCurrentShape(apiVersion)
    ? { code: error.code, message: error.message, ...error.extra }
    : { code: error.status, error_code: error.code, msg: error.message, ...error.extra };
  sendJson(res, error.status, body, headers);
}

/** PostgreSQL SQLSTATEs that mean the caller's data was unacceptable, not that we failed. */
export function fromDatabaseError(error: unknown): AuthError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  // Class 22 (data exception): NUL bytes in text, \u0000 in jsonb, values out of range.
  if (code.startsWith('22'))
    return validationFailed('Invalid input: the request contains a value the database cannot store');
  if (code === '54000' || code === '54001')
    return validationFailed('Invalid input: the value is too large or too deeply nested');
  if (code === '23503')
    return new AuthError(409, 'conflict', 'Database error: the user is still referenced by other rows');
  return null;
}

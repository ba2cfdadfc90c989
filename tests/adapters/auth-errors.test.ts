import { AuthApiError, AuthRetryableFetchError, AuthUnknownError, AuthWeakPasswordError } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { describeAuthError } from '../../src/adapters/supabase/auth-errors.ts';

/**
 * Codes the real backend rarely produces on demand (rate limits, disabled providers, 5xx)
 * checked with supabase-js's own error classes, as the client would construct them.
 */
describe('describeAuthError', () => {
  it.each([
    ['invalid_credentials', 400, 'invalid_credentials', 'Wrong email or password'],
    ['user_already_exists', 422, 'user_already_exists', 'An account with this email already exists. Sign in instead.'],
    ['email_exists', 422, 'user_already_exists', 'An account with this email already exists. Sign in instead.'],
    ['over_request_rate_limit', 429, 'rate_limited', 'Too many attempts. Wait a minute, then try again.'],
    ['over_email_send_rate_limit', 429, 'rate_limited', 'Too many attempts. Wait a minute, then try again.'],
    ['email_address_invalid', 400, 'invalid_email', 'Enter a valid email address'],
    ['email_not_confirmed', 400, 'email_not_confirmed', 'Confirm your email first: follow the link we sent you.'],
    ['signup_disabled', 422, 'signup_disabled', 'New accounts are turned off for this workspace.'],
    ['anonymous_provider_disabled', 422, 'guest_disabled', 'Guest access is turned off for this workspace.'],
  ] as const)('maps %s', (code, status, expectedCode, message) => {
    expect(describeAuthError(new AuthApiError('server words', status, code))).toEqual({ code: expectedCode, message });
  });

  it('keeps the rule from a weak password message', () => {
    const error = new AuthWeakPasswordError('Password should be at least 6 characters.', 422, ['length']);
    expect(describeAuthError(error)).toEqual({
      code: 'weak_password',
      message: 'Choose a stronger password. Password should be at least 6 characters.',
    });
  });

  it('treats a failed fetch as a network failure', () => {
    expect(describeAuthError(new AuthRetryableFetchError('Failed to fetch', 0)).code).toBe('network');
    expect(describeAuthError(new TypeError('Failed to fetch')).code).toBe('network');
  });

  it('words server errors and unknown codes without leaking internals', () => {
    expect(describeAuthError(new AuthApiError('boom', 500, 'unexpected_failure'))).toEqual({
      code: 'unknown',
      message: 'The server had a problem. Try again in a moment.',
    });
    expect(describeAuthError(new AuthApiError('slow down', 429, undefined)).code).toBe('rate_limited');
    expect(describeAuthError(new AuthUnknownError('Unexpected token <', null)).message).toBe('Unexpected token <');
    expect(describeAuthError('???')).toEqual({ code: 'unknown', message: 'Something went wrong. Try again.' });
  });

  it('recognises email problems reported as validation failures', () => {
    expect(
      describeAuthError(new AuthApiError('Unable to validate email address: invalid format', 400, 'validation_failed'))
        .code,
    ).toBe('invalid_email');
  });
});

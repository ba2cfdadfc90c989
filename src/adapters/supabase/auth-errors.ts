import { isAuthApiError, isAuthError, isAuthRetryableFetchError, isAuthWeakPasswordError } from '@supabase/supabase-js';
import type { AuthFailure } from '../../lib/ports/auth.ts';

/**
 * Turns whatever supabase-js returned as an error into a failure a person can act on.
 * Decisions use the API error `code` (stable across GoTrue versions), never the English
 * message, which only fills in detail where the code alone says too little.
 */
export function describeAuthError(error: unknown): AuthFailure {
  if (isAuthRetryableFetchError(error) || error instanceof TypeError) {
    return { code: 'network', message: "Can't reach the server. Check your connection and try again." };
  }
  if (isAuthWeakPasswordError(error)) {
    return { code: 'weak_password', message: weakPasswordMessage(error.message) };
  }
  if (isAuthApiError(error)) {
    switch (error.code) {
      case 'invalid_credentials':
        return { code: 'invalid_credentials', message: 'Wrong email or password' };
      case 'user_already_exists':
      case 'email_exists':
        return { code: 'user_already_exists', message: 'An account with this email already exists. Sign in instead.' };
      case 'weak_password':
        return { code: 'weak_password', message: weakPasswordMessage(error.message) };
      case 'email_address_invalid':
        return { code: 'invalid_email', message: 'Enter a valid email address' };
      case 'validation_failed':
        return /email/i.test(error.message)
          ? { code: 'invalid_email', message: 'Enter a valid email address' }
          : { code: 'unknown', message: error.message || 'Check the form and try again.' };
      case 'over_request_rate_limit':
      case 'over_email_send_rate_limit':
        return { code: 'rate_limited', message: 'Too many attempts. Wait a minute, then try again.' };
      case 'email_not_confirmed':
        return { code: 'email_not_confirmed', message: 'Confirm your email first: follow the link we sent you.' };
      case 'signup_disabled':
      case 'email_provider_disabled':
        return { code: 'signup_disabled', message: 'New accounts are turned off for this workspace.' };
      case 'anonymous_provider_disabled':
        return { code: 'guest_disabled', message: 'Guest access is turned off for this workspace.' };
      default:
        if (error.status === 429)
          return { code: 'rate_limited', message: 'Too many attempts. Wait a minute, then try again.' };
        if (error.status >= 500)
          return { code: 'unknown', message: 'The server had a problem. Try again in a moment.' };
    }
  }
  if (isAuthError(error) && error.message) return { code: 'unknown', message: error.message };
  return { code: 'unknown', message: 'Something went wrong. Try again.' };
}

function weakPasswordMessage(serverMessage: string): string {
  // GoTrue's message names the rule ("Password should be at least 6 characters."), worth keeping.
  return serverMessage ? `Choose a stronger password. ${serverMessage}` : 'Choose a stronger password.';
}

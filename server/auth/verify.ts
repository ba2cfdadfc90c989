import { body, type Call, type Reply } from './call.ts';
import { validateEmail } from './credentials.ts';
import { AuthError, validationFailed } from './errors.ts';

const TYPES = new Set(['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email', 'sms', 'phone_change']);

/** GoTrue's phone rule: E.164 digits once `+`, spaces and dashes-free. */
function validatePhone(raw: string): string {
  const phone = raw.replace(/^\+/, '').replace(/\s/g, '');
  if (!/^[1-9]\d{1,14}$/.test(phone)) throw validationFailed('Invalid phone number format (E.164 required)');
  return phone;
}

/**
 * POST /verify {type, token | token_hash, email | phone}. The input is checked as GoTrue
 * checks it. This backend sends no mail or SMS yet, so it has issued no one-time token
 * that could match: every well-formed request gets GoTrue's answer for an unknown token.
 */
export async function verify(call: Call): Promise<Reply> {
  const params = await body(call);
  const type = typeof params.type === 'string' ? params.type : '';
  if (!TYPES.has(type)) throw validationFailed('Verify requires a verification type');
  if (typeof params.phone === 'string' && params.phone !== '') validatePhone(params.phone);
  else if (typeof params.email === 'string' && params.email !== '') validateEmail(params.email);
  else if (typeof params.token_hash !== 'string' || params.token_hash === '') {
    throw validationFailed('Verify requires either a token or a token hash');
  }
  throw new AuthError(403, 'otp_expired', 'Token has expired or is invalid');
}

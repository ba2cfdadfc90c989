import bcrypt from 'bcryptjs';
import { AuthError, validationFailed } from './errors.ts';

/** bcrypt reads at most 72 bytes; GoTrue refuses longer passwords instead of truncating. */
export const MAX_PASSWORD_BYTES = 72;
export const MIN_PASSWORD_LENGTH = 6;

/** GoTrue's strength check: too long is a validation error, too short a weak_password. */
export function checkPasswordStrength(password: string): void {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw validationFailed(`Password cannot be longer than ${MAX_PASSWORD_BYTES} characters`);
  }
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new AuthError(422, 'weak_password', `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`, {
      weak_password: { reasons: ['length'] },
    });
  }
}

// The WHATWG "valid e-mail address" grammar, which is what GoTrue's checkmail accepts.
const EMAIL_FORMAT =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Validates and normalises (lower-cases) an email address as GoTrue does. */
export function validateEmail(email: string): string {
  if (email === '') throw validationFailed('An email address is required');
  if (email.length > 255) throw validationFailed('An email address is too long');
  if (!EMAIL_FORMAT.test(email)) throw validationFailed('Unable to validate email address: invalid format');
  return email.toLowerCase();
}

/** E.164 without the plus, as GoTrue stores phone numbers. */
export function validatePhone(phone: string): string {
  const digits = phone.replace(/[\s+]/g, '');
  if (!/^[1-9]\d{4,14}$/.test(digits)) throw validationFailed('Invalid phone number format (E.164 required)');
  return digits;
}

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

// Compared against when there is nothing real to compare with (see verifyPassword); made on
// first need so start-up does not pay for it.
let decoyHash: Promise<string> | null = null;
const decoy = () => (decoyHash ??= bcrypt.hash('decoy-password-never-matches', 10));

/**
 * True when the password matches the stored bcrypt hash (pgcrypto's $2a$ and bcryptjs'
 * $2b$ alike). Every refusal costs one bcrypt comparison, so response time does not tell
 * a missing user or an over-long password from a wrong one.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const tooLong = Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
  if (tooLong || !hash || !hash.startsWith('$2')) {
    await bcrypt.compare(password.slice(0, MAX_PASSWORD_BYTES), await decoy());
    return false;
  }
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    return false;
  }
}

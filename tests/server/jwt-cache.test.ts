import { describe, expect, it } from 'vitest';
import { JwtError, signJwt, verifyJwtCached } from '../../server/jwt.ts';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const OTHER = 'another-secret-of-at-least-thirty-two-chars';

function refusal(fn: () => unknown): JwtError {
  try {
    fn();
  } catch (error) {
    if (error instanceof JwtError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('verifyJwtCached (the gateway remembers verified tokens)', () => {
  it('answers a valid token with its claims every time, each caller with its own copy', () => {
    const token = signJwt({ role: 'authenticated', sub: 'u1', exp: 2_000 }, SECRET);
    const first = verifyJwtCached(token, SECRET, 1_000);
    expect(first).toMatchObject({ role: 'authenticated', sub: 'u1' });
    first.role = 'service_role';
    expect(verifyJwtCached(token, SECRET, 1_001).role).toBe('authenticated');
  });

  it('still refuses a remembered token once it has expired', () => {
    const token = signJwt({ role: 'authenticated', sub: 'u2', exp: 2_000 }, SECRET);
    expect(verifyJwtCached(token, SECRET, 1_999).sub).toBe('u2');
    expect(refusal(() => verifyJwtCached(token, SECRET, 2_000)).reason).toBe('expired');
    expect(refusal(() => verifyJwtCached(token, SECRET, 2_500)).reason).toBe('expired');
  });

  it('does not take a token verified under one secret as valid under another', () => {
    const token = signJwt({ role: 'authenticated', sub: 'u3', exp: 2_000 }, SECRET);
    expect(verifyJwtCached(token, SECRET, 1_000).sub).toBe('u3');
    expect(refusal(() => verifyJwtCached(token, OTHER, 1_000)).reason).toBe('bad_signature');
  });

  it('refuses a token whose payload was changed after a valid one was remembered', () => {
    const token = signJwt({ role: 'authenticated', sub: 'u4', exp: 2_000 }, SECRET);
    verifyJwtCached(token, SECRET, 1_000);
    const [header, , sig] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ role: 'service_role', exp: 2_000 })).toString('base64url')}.${sig}`;
    expect(refusal(() => verifyJwtCached(forged, SECRET, 1_000)).reason).toBe('bad_signature');
  });
});

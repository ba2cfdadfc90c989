import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { backendInfo } from '../../setup/clients.ts';

/** GoTrue's own answers for the features this backend leaves off, through supabase-js (never a bare 404). */
function client() {
  const { url, anonKey } = backendInfo();
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

describe('features left off answer as GoTrue does when they are disabled', () => {
  it('SSO, web3 and id_token sign-ins', async () => {
    const auth = client().auth;
    const sso = await auth.signInWithSSO({ domain: 'example.com' });
    expect(sso.error).toMatchObject({ status: 404, code: 'saml_provider_disabled', message: 'SAML 2.0 is disabled' });
    const idToken = await auth.signInWithIdToken({ provider: 'google', token: 'not-a-token' });
    expect(idToken.error).toMatchObject({
      status: 400,
      code: 'provider_disabled',
      message: 'Provider (issuer "https://accounts.google.com") is not enabled',
    });
    const res = await fetch(`${backendInfo().url}/auth/v1/token?grant_type=web3`, {
      method: 'POST',
      headers: { apikey: backendInfo().anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ chain: 'ethereum', message: 'm', signature: 's' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error_code: 'web3_provider_disabled', msg: 'Web3 provider is disabled' });
  });

  it('identity linking: a bearer token first, then the feature is off', async () => {
    const noBearer = await fetch(`${backendInfo().url}/auth/v1/user/identities/authorize?provider=github`, {
      headers: { apikey: backendInfo().anonKey },
    });
    expect(noBearer.status).toBe(401);
    expect(await noBearer.json()).toMatchObject({ error_code: 'no_authorization' });

    const auth = client().auth;
    const email = `conf-${crypto.randomUUID()}@example.com`;
    expect((await auth.signUp({ email, password: 'correct-horse-battery' })).error).toBeNull();
    const webauthn = await auth.mfa.enroll({ factorType: 'webauthn' as 'totp' });
    expect(webauthn.error).toMatchObject({ status: 422, code: 'mfa_webauthn_enroll_not_enabled' });
    const link = await auth.linkIdentity({ provider: 'github', options: { skipBrowserRedirect: true } });
    expect(link.error).toMatchObject({
      status: 404,
      code: 'manual_linking_disabled',
      message: 'Manual linking is disabled',
    });
  });

  it('verifies one-time tokens as GoTrue does when none was issued: phone format first, then otp_expired', async () => {
    const auth = client().auth;
    const badPhone = await auth.verifyOtp({ phone: '12345-invalid', token: '123456', type: 'sms' });
    expect(badPhone.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'Invalid phone number format (E.164 required)',
    });
    const unknown = await auth.verifyOtp({ phone: '15555550100', token: '123456', type: 'sms' });
    expect(unknown.error).toMatchObject({
      status: 403,
      code: 'otp_expired',
      message: 'Token has expired or is invalid',
    });
    expect(unknown.data.user).toBeNull();
    const byEmail = await auth.verifyOtp({ email: 'nobody@example.com', token: '123456', type: 'email' });
    expect(byEmail.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });
  it('passkeys, the OAuth server and custom providers answer GoTrue disabled errors; anonymous users get no factors', async () => {
    const { url, anonKey, serviceRoleKey } = backendInfo();
    const passkey = await fetch(`${url}/auth/v1/passkeys/authentication/options`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
      body: '{}',
    });
    expect(passkey.status).toBe(404);
    expect(await passkey.json()).toEqual({ code: 'passkey_disabled', message: 'Passkeys are disabled' });

    const admin = createClient(url, serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    }).auth.admin;
    const clients = await admin.oauth.listClients();
    expect(clients.error).toMatchObject({ status: 404, code: 'feature_disabled', message: 'OAuth server is disabled' });
    const anonAdmin = await fetch(`${url}/auth/v1/admin/oauth/clients`, { headers: { apikey: anonKey } });
    expect(anonAdmin.status).toBe(401);

    const guest = client().auth;
    expect((await guest.signInAnonymously()).error).toBeNull();
    const enroll = await guest.mfa.enroll({ factorType: 'totp' });
    expect(enroll.error).toMatchObject({
      status: 403,
      code: 'no_authorization',
      message: 'Anonymous user not allowed to perform these actions',
    });
  });
});

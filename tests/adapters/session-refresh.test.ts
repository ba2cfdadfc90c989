import { describe, expect, it } from 'vitest';
import { createAuthAdapter } from '../../src/adapters/supabase/auth.ts';
import { anonClient, signedInClient } from '../setup/clients.ts';

/** The adapter's refresh against the real backend: a fresh token, then a revoked one. */
describe('auth adapter refreshSession', () => {
  it('refreshes a live session, and reports session_expired once the refresh token is revoked', async () => {
    const { client, user } = await signedInClient('refresh');
    const adapter = createAuthAdapter(client);
    const refreshed = await adapter.refreshSession();
    expect(refreshed.ok && refreshed.session.user.id).toBe(user.id);

    // The same person signs out everywhere from another device: every refresh token is revoked.
    const { data } = await client.auth.getSession();
    if (!data.session) throw new Error('no session');
    const elsewhere = anonClient();
    const restored = await elsewhere.auth.setSession({
      access_token: data.session.access_token,
      refresh_token: data.session.refresh_token,
    });
    expect(restored.error).toBeNull();
    expect((await elsewhere.auth.signOut({ scope: 'global' })).error).toBeNull();

    const expired = await adapter.refreshSession();
    expect(expired).toEqual({
      ok: false,
      error: { code: 'session_expired', message: 'Your session has expired. Sign in again to continue.' },
    });
  });
});

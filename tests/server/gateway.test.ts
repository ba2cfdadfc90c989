import { describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { backendInfo } from '../setup/clients.ts';
import { expectPreflightAllows } from './cors-helpers.ts';

describe('gateway', () => {
  it('answers CORS preflights for the app loopback origins with the requested headers, and exposes Content-Range', async () => {
    const { url } = backendInfo();
    await expectPreflightAllows(
      `${url}/rest/v1/anything`,
      'http://127.0.0.1:5173',
      'apikey,authorization,content-profile,content-type,prefer,x-client-info',
      'PATCH',
    );
    await expectPreflightAllows(`${url}/rest/v1/anything`, 'http://localhost:40123', 'apikey,content-type', 'POST');
    const get = await fetch(`${url}/auth/v1/health`, { headers: { origin: 'http://localhost:5173' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(get.headers.get('access-control-expose-headers')).toContain('Content-Range');
  });

  it('does not echo an origin it was not told about: no allow-origin on answers, preflights refused', async () => {
    const { url } = backendInfo();
    for (const origin of ['https://evil.example', 'http://127.0.0.1.evil.example:5173', 'null']) {
      const get = await fetch(`${url}/auth/v1/health`, { headers: { origin } });
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
      const pre = await fetch(`${url}/rest/v1/anything`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'apikey' },
      });
      expect(pre.status).toBe(403);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    }
    // Servers and curl send no Origin: they get `*`, as from hosted Supabase.
    const plain = await fetch(`${url}/auth/v1/health`);
    expect(plain.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('refuses a forged or expired bearer with a 401 JSON error before any service runs', async () => {
    const { url, jwtSecret } = backendInfo();
    const forged = signJwt({ role: 'service_role' }, 'not-the-secret-not-the-secret-not-the-secret');
    const expired = signJwt(
      { role: 'authenticated', sub: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) - 60 },
      jwtSecret,
    );
    for (const token of [forged, expired, 'garbage']) {
      const res = await fetch(`${url}/rest/v1/some_table`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const body = (await res.json()) as { message?: unknown };
      expect(typeof body.message).toBe('string');
    }
  });

  it('refuses a JWT whose role is not a request role', async () => {
    const { url, jwtSecret } = backendInfo();
    const token = signJwt({ role: 'postgres' }, jwtSecret);
    const res = await fetch(`${url}/rest/v1/some_table`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
  });

  it('runs a valid JWT without a role claim as anon, as PostgREST does', async () => {
    const { url, jwtSecret, anonKey } = backendInfo();
    const noRole = signJwt({ sub: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) + 60 }, jwtSecret);
    const asNoRole = (path: string) =>
      fetch(`${url}/rest/v1${path}`, { headers: { apikey: anonKey, authorization: `Bearer ${noRole}` } });
    // anon may read projects, and only anon is refused project_invites by privilege.
    expect((await asNoRole('/projects?select=id&limit=1')).status).toBe(200);
    const invites = await asNoRole('/project_invites?select=id');
    expect(invites.status).toBe(401);
    expect(await invites.json()).toMatchObject({
      code: '42501',
      message: 'permission denied for table project_invites',
    });
    const asUser = signJwt(
      { sub: crypto.randomUUID(), role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 60 },
      jwtSecret,
    );
    const userInvites = await fetch(`${url}/rest/v1/project_invites?select=id`, {
      headers: { apikey: anonKey, authorization: `Bearer ${asUser}` },
    });
    expect(userInvites.status).toBe(200);
  });

  it('answers an unknown prefix with a 404 JSON error', async () => {
    const res = await fetch(`${backendInfo().url}/nope/v1/x`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'no Route matched with those values' });
  });
});
